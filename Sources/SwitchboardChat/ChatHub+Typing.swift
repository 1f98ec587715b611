import SwitchboardWire

/// Typing events (docs/PROTOCOLS.md, "Typing"): ephemeral, never kept, fanned out to this
/// node's members of the room and relayed to the other nodes through the broker. The
/// session of the typing member keeps its state, its rate limit and its expiry
/// (``TypingState``); the hub only carries the events.
extension ChatHub {
  /// Shows that `id` started (`active`) or stopped typing to the other members of its room on
  /// every node. Returns the event shown, or `nil` when the member is in no room (nothing
  /// is sent then).
  @discardableResult
  public func publishTyping(from id: MemberID, active: Bool) -> TypingEvent? {
    guard
      let (name, cell) = record(id)?.info.withLock({ info -> (String, HubRoomCell)? in
        guard let info, info.placement == .inRoom else { return nil }
        return (info.name, info.cell)
      })
    else { return nil }
    let event = TypingEvent(room: cell.name, author: name, active: active)
    cell.state.withLock { r in
      guard r.isOpen else { return }
      fanOut(r.shards, .typing(event, origin: id.detached))
    }
    broker.relayTyping(event)
    return event
  }

  /// Shows another node's typing event to this node's members of the room (see
  /// ``RoomBrokerSink/remoteTyping(_:)``); ignored while the room is not open here.
  public func remoteTyping(_ event: TypingEvent) {
    guard let cell = directory.withLock({ $0.rooms[event.room] }) else { return }
    cell.state.withLock { r in
      guard r.isOpen else { return }
      fanOut(r.shards, .typing(event, origin: nil))
    }
  }
}
