import Synchronization

/// One shard of the hub (one event loop): it runs the tasks that reach the members living
/// on it. Confined to the shard's thread; the hub reaches it only through its executor.
public final class HubShard: @unchecked Sendable {
  // Safety: `rooms` is read and written only inside tasks run by `executor`, which runs
  // them serially on the shard's own thread.
  /// The shard's index in the hub.
  public let index: Int
  let executor: ShardExecutor
  /// Messages handed to members on this shard (one per member per message), added to once
  /// per delivery task by this shard's thread alone, so the line it is on never moves
  /// between cores (``ChatHub/deliveries``).
  let deliveries = Atomic<Int>(0)
  /// The rooms with members on this shard (for ``deliverToAll(_:)``).
  private var rooms: [ObjectIdentifier: HubShardRoom] = [:]

  init(index: Int, executor: ShardExecutor) {
    self.index = index
    self.executor = executor
  }

  func register(_ room: HubShardRoom) { rooms[ObjectIdentifier(room)] = room }

  func unregister(_ room: HubShardRoom) { rooms[ObjectIdentifier(room)] = nil }

  /// The member `id` of this shard, if it is in a room here.
  func member(_ id: MemberID) -> (any LocalMember)? {
    for room in rooms.values {
      if let member = room.member(id) { return member }
    }
    return nil
  }

  func deliverToAll(_ event: ChatEvent) {
    var cache = EncodingCache()
    for room in rooms.values { room.deliver(event, cache: &cache) }
  }
}
