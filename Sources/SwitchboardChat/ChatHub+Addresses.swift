import SwitchboardWire
import Synchronization

extension ChatHub {
  /// The network addresses of `room`'s members on this node, by member name, asked of each
  /// member on its own shard (nothing is stored per member for it). `completion` runs once,
  /// on the thread of the last shard to answer (at once, on the caller's, when the room has
  /// no member here).
  public func memberAddresses(room: String, completion: @escaping @Sendable ([String: String]) -> Void) {
    let room = RoomName.canonical(room)
    let sides = cell(room)?.state.withLock { $0.shards.map(\.room) } ?? []
    guard !sides.isEmpty else { return completion([:]) }
    let gathered = Mutex((left: sides.count, found: [(MemberID, String)]()))
    for side in sides {
      side.executor.execute { [self] in
        let here = side.memberAddresses()
        let done = gathered.withLock { g -> [(MemberID, String)]? in
          g.found += here
          g.left -= 1
          return g.left == 0 ? g.found : nil
        }
        guard let done else { return }
        var byName: [String: String] = [:]
        for (id, address) in done {
          if let name = member(id)?.name { byName[name] = address }
        }
        completion(byName)
      }
    }
  }
}
