/// The members of one room that live on one shard (one event loop). Confined to the
/// shard's thread; the hub reaches it only through its executor.
public final class HubShard: @unchecked Sendable {
  // Safety: `rooms` is read and written only inside tasks run by `executor`, which runs
  // them serially on the shard's own thread.
  /// The shard's index in the hub.
  public let index: Int
  let executor: ShardExecutor
  private var rooms: [String: [MemberID: LocalMember]] = [:]

  init(index: Int, executor: ShardExecutor) {
    self.index = index
    self.executor = executor
  }

  func add(_ member: LocalMember, room: String) {
    rooms[room, default: [:]][member.memberID] = member
  }

  func remove(_ id: MemberID, room: String) {
    rooms[room]?[id] = nil
    if rooms[room]?.isEmpty == true { rooms[room] = nil }
  }

  func deliver(_ event: ChatEvent, room: String) {
    guard let members = rooms[room] else { return }
    var cache = EncodingCache(sendNow: !executor.hasPendingTasks)
    for member in members.values { member.receive(event, cache: &cache) }
  }

  func deliverToAll(_ event: ChatEvent) {
    var cache = EncodingCache()
    for members in rooms.values {
      for member in members.values { member.receive(event, cache: &cache) }
    }
  }
}
