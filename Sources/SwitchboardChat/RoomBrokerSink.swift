import SwitchboardWire

/// What a ``RoomBroker`` delivers into: the hub of this node (``ChatHub`` conforms).
public protocol RoomBrokerSink: AnyObject, Sendable {
  /// A message of `room` in `epoch`, from this node or another, to deliver to this node's
  /// members. Called in id order per room (see ``RoomBroker``); `origin` is the member
  /// of this node who published it, `nil` for messages from other nodes.
  func deliver(_ message: ChatMessage, epoch: String, origin: MemberID?)
  /// A published message was not kept (its id, when one was assigned). Reported once per
  /// message, on any thread; live delivery is not affected.
  func keepFailed(room: String, id: UInt64?, error: BrokerError)
  /// A member of another node joined, left or renamed in `event.room`; `event.members`
  /// counts the room's members on every node. Shown to this node's members, not kept.
  /// Called on any thread. The default ignores it.
  func remotePresence(_ event: PresenceEvent)
  /// A join, leave or rename of `member`, a member of this node, that the broker passed
  /// back (``RoomBroker/showsOwnPresence``) with `event.members` counting the room's
  /// members on every node. Shown to this node's members, not kept. Called on any thread,
  /// in the order of ``RoomBroker/presenceChanged(_:member:)`` per room. The default
  /// ignores it.
  func ownPresence(_ event: PresenceEvent, member: MemberID)
  /// A member of another node that stopped refreshing its presence (the node died or lost
  /// Redis) was removed by this node: the broker reports each such leave once for the
  /// cluster, on the node that removed it, with `event.members` counting the room's members
  /// left on every node. For webhooks; the line itself comes through ``remotePresence(_:)``.
  /// Called on any thread. The default ignores it.
  func expiredPresence(_ event: PresenceEvent)
  /// Another node's server API disconnects the members called `name` in `room`, or in
  /// every room when `room` is `nil` (``RoomBroker/disconnect(name:room:reason:)``): close
  /// this node's. Called on any thread. The default ignores it.
  func remoteDisconnect(name: String, room: String?, reason: String)
  /// A member of another node started or stopped typing in `event.room`
  /// (``RoomBroker/relayTyping(_:)``): shown to this node's members that enabled typing,
  /// never kept. Called on any thread. The default ignores it.
  func remoteTyping(_ event: TypingEvent)
}

extension RoomBrokerSink {
  /// Ignores it.
  public func remotePresence(_ event: PresenceEvent) {}
  /// Ignores it.
  public func ownPresence(_ event: PresenceEvent, member: MemberID) {}
  /// Ignores it.
  public func expiredPresence(_ event: PresenceEvent) {}
  public func remoteDisconnect(name: String, room: String?, reason: String) {}
  /// Ignores it.
  public func remoteTyping(_ event: TypingEvent) {}
}
