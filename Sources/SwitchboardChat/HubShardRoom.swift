/// The members of one room that live on one shard. Confined to the shard's thread: the
/// room's cell holds it and queues tasks on the shard's executor that call it, so a
/// delivery reaches the room's members on the loop without a dictionary lookup.
final class HubShardRoom: @unchecked Sendable {
  // Safety: `members` is read and written only inside tasks run by `shard.executor`,
  // which runs them serially on the shard's own thread; other threads only hold the
  // reference.
  let shard: HubShard
  /// The shard's executor, kept here so a delivery reaches it without going through
  /// `shard` (one reference fewer to retain per queued delivery).
  let executor: ShardExecutor
  private var members: [MemberID: LocalMember] = [:]

  init(shard: HubShard) {
    self.shard = shard
    executor = shard.executor
  }

  func add(_ member: LocalMember) {
    if members.isEmpty { shard.register(self) }
    members[member.memberID] = member
  }

  func remove(_ id: MemberID) {
    members[id] = nil
    if members.isEmpty { shard.unregister(self) }
  }

  func deliver(_ event: ChatEvent) {
    guard !members.isEmpty else { return }
    var cache = EncodingCache(sendNow: !executor.hasPendingTasks)
    for member in members.values { member.receive(event, cache: &cache) }
  }

  /// Delivers `event` with a cache shared across the shard's rooms (``HubShard/deliverToAll(_:)``).
  func deliver(_ event: ChatEvent, cache: inout EncodingCache) {
    for member in members.values { member.receive(event, cache: &cache) }
  }
}
