/// The members of one room that live on one shard. Confined to the shard's thread: the
/// room's cell holds it and queues tasks on the shard's executor that call it, so a
/// delivery reaches the room's members on the loop without a dictionary lookup.
final class HubShardRoom: @unchecked Sendable {
  // Safety: `members` and `slots` are read and written only inside tasks run by
  // `shard.executor`, which runs them serially on the shard's own thread; other threads
  // only hold the reference. For the same reason no access to them ever overlaps
  // another, so their dynamic exclusivity checks (one `swift_beginAccess` per delivery)
  // are off.
  let shard: HubShard
  /// The shard's executor, kept here so a delivery reaches it without going through
  /// `shard` (one reference fewer to retain per queued delivery).
  let executor: ShardExecutor
  /// Where each member's slot is in ``slots``.
  @exclusivity(unchecked) private var members: [MemberID: Int] = [:]
  /// The members, contiguous, in no particular order (a removal moves the last one into
  /// the gap): a delivery walks them without hashing, retaining or a dynamic cast.
  @exclusivity(unchecked) private var slots: ContiguousArray<Slot> = []

  /// One member, with what the fan-out calls it through: its type (for the conformance's
  /// ``LocalMember/receive(unretained:_:cache:)``, a direct call of its `receive`) and its
  /// address. `member` is the strong reference that keeps the address valid.
  struct Slot {
    let member: any LocalMember
    let type: any LocalMember.Type
    let object: UnsafeMutableRawPointer

    init(_ member: any LocalMember) {
      self.member = member
      type = Swift.type(of: member)
      object = Unmanaged.passUnretained(member as AnyObject).toOpaque()
    }
  }

  init(shard: HubShard) {
    self.shard = shard
    executor = shard.executor
  }

  /// The members, in delivery order (for tests).
  var memberIDs: [MemberID] { slots.map { $0.member.memberID } }

  func add(_ member: LocalMember) {
    if slots.isEmpty { shard.register(self) }
    let id = member.memberID
    if let index = members[id] {
      slots[index] = Slot(member)  // a second add of an id replaces the member, in place
    } else {
      members[id] = slots.count
      slots.append(Slot(member))
    }
  }

  func remove(_ id: MemberID) {
    guard let index = members.removeValue(forKey: id) else { return }
    let last = slots.count - 1
    if index != last {
      slots.swapAt(index, last)
      members[slots[index].member.memberID] = index
    }
    slots.removeLast()
    if slots.isEmpty { shard.unregister(self) }
  }

  func deliver(_ event: ChatEvent) {
    guard !slots.isEmpty else { return }
    var cache = EncodingCache(sendNow: !executor.hasPendingTasks)
    deliver(event, cache: &cache)
  }

  /// Delivers `event` with a cache shared across the shard's rooms (``HubShard/deliverToAll(_:)``).
  func deliver(_ event: ChatEvent, cache: inout EncodingCache) {
    // The walk goes over this copy of the slots (one retain of their storage), so that a
    // member added or removed meanwhile — which the hub queues as a task, so it does not
    // happen today — neither moves the storage under the walk nor frees a member in it:
    // the copy's strong references keep every member it calls alive.
    let slots = self.slots
    slots.withUnsafeBufferPointer { slots in
      for i in slots.indices {
        slots[i].type.receive(unretained: slots[i].object, event, cache: &cache)
      }
    }
  }
}
