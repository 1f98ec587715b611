import SwitchboardWire
import Synchronization

/// What sessions ask the hub about members and rooms: each takes the directory's lock (a
/// member's own record alone for ``member(_:)``), never on the publish path.
extension ChatHub {
  /// The member's current name, room and colour.
  public func member(_ id: MemberID) -> (name: String, room: String, color: String)? {
    record(id)?.info.withLock { info in info.map { ($0.name, $0.room, $0.color) } }
  }

  /// Names of the announced members of `room` on this node (also those whose join waits
  /// for the room to load), sorted.
  public func who(room: String) -> [String] {
    directory.withLock { directory in
      directory.members.values.compactMap { record in
        record.info.withLock { info in info.flatMap { $0.room == room && $0.announced ? $0.name : nil } }
      }
    }.sorted()
  }

  /// Names of the announced members of `room` on every node (the broker adds the
  /// others'), sorted; `completion` runs on `shard`'s thread. When the broker cannot
  /// answer, this node's members.
  public func who(room: String, shard: HubShard, completion: @escaping ([String]) -> Void) {
    let local = who(room: room)
    let answer = ShardBound(completion)
    broker.remoteMembers(room: room, on: shard.executor) { result in
      let remote = (try? result.get()) ?? []
      answer.value(remote.isEmpty ? local : (local + remote).sorted())
    }
  }

  /// Rooms with members on this node, and how many, sorted by name.
  public func rooms() -> [(name: String, members: Int)] {
    directory.withLock { directory in
      directory.rooms.compactMap { name, cell -> (name: String, members: Int)? in
        let count = cell.state.withLock { $0.members.count }
        return count == 0 ? nil : (name, count)
      }
    }.sorted { $0.name < $1.name }
  }

  /// The last `count` messages of `room` in this node's ring.
  public func history(room: String, last count: Int) -> [ChatMessage] {
    cell(room)?.state.withLock { $0.history.last(count) } ?? []
  }

  /// The messages of `room` in this node's ring with an id above `id`.
  public func history(room: String, after id: UInt64) -> [ChatMessage] {
    cell(room)?.state.withLock { $0.history.after(id) } ?? []
  }

  /// The kept messages of `room` with an id above `id` (at most `historyLimit`):
  /// from the ring when it reaches back far enough, else from the broker. `completion`
  /// runs on `shard`'s thread, at once when the ring answers.
  public func history(
    room: String, after id: UInt64, shard: HubShard,
    completion: @escaping (Result<[ChatMessage], BrokerError>) -> Void
  ) {
    let ring = cell(room)?.state.withLock { r -> [ChatMessage]? in
      guard r.isOpen else { return nil }
      let kept = r.history.after(id)
      // The ring covers `id` when it holds the next message (or everything is newer
      // than `id`), or when it has never dropped one (it holds the whole room).
      if kept.first.map({ $0.id <= id + 1 }) ?? true || r.history.count < r.history.capacity { return kept }
      return nil
    }
    if let ring { return completion(.success(ring)) }
    let answer = ShardBound(completion)
    broker.history(room: room, after: id, limit: configuration.historyLimit, on: shard.executor) {
      answer.value($0)
    }
  }

  /// The epoch of `room`'s history, `nil` while it is not open on this node.
  public func epoch(room: String) -> String? {
    cell(room)?.state.withLock { $0.isOpen ? $0.epoch : nil }
  }

  /// Counts for metrics: members and rooms.
  public var counts: (members: Int, rooms: Int) {
    directory.withLock { directory in
      let rooms = directory.rooms.values.filter { cell in cell.state.withLock { !$0.members.isEmpty } }
      return (directory.members.count, rooms.count)
    }
  }

  /// The room's cell in the room table, if it is there.
  func cell(_ room: String) -> HubRoomCell? {
    directory.withLock { $0.rooms[room] }
  }
}
