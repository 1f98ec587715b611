import SwitchboardWire
import Synchronization

/// The members of one room that live on one shard. Confined to the shard's thread: the
/// room's cell holds it and queues tasks on the shard's executor that call it, so a
/// delivery reaches the room's members on the loop without a dictionary lookup.
final class HubShardRoom: @unchecked Sendable {
  // Safety: `members` and `positions` are read and written only inside tasks run by
  // `shard.executor`, which runs them serially on the shard's own thread; other threads
  // only hold the reference. For the same reason no access to them ever overlaps
  // another, so their dynamic exclusivity checks (one `swift_beginAccess` per delivery)
  // are off.
  let shard: HubShard
  /// The shard's executor, kept here so a delivery reaches it without going through
  /// `shard` (one reference fewer to retain per queued delivery).
  let executor: ShardExecutor
  /// The members, contiguous, in no particular order (a removal moves the last one into
  /// the gap): a delivery walks them without hashing, retaining or a dynamic cast.
  @exclusivity(unchecked) private var members: ContiguousArray<any LocalMember> = []
  /// Where each member is in ``members``, by its raw id (what `MemberID` compares). 28
  /// bytes a member with the array, less than the dictionary of members this replaces
  /// (every idle connection is a member somewhere, so these bytes are part of its cost).
  @exclusivity(unchecked) private var positions: [UInt64: Int32] = [:]

  /// Messages posted to this side of the room (``post(_:origin:)``) for the delivery task
  /// queued on the shard, and the executor's ``ShardExecutor/taskStamp`` when it was
  /// queued (`nil`: no task queued). Any thread, under the lock.
  private let inbox = Mutex<Inbox>(Inbox())
  /// The inbox's other array, swapped in by the delivery task so that neither side
  /// allocates once both have grown (shard thread only).
  @exclusivity(unchecked) private var spareMessages = ContiguousArray<BatchedMessage>()

  struct Inbox {
    var messages = ContiguousArray<BatchedMessage>()
    var queuedAt: UInt64?
  }

  /// Batches above this many messages keep no storage for the next (a burst's arrays are
  /// not kept for the room's life).
  static let keptCapacity = 256

  init(shard: HubShard) {
    self.shard = shard
    executor = shard.executor
  }

  /// The members on this side of the room with their addresses (shard thread only).
  func memberAddresses() -> [(MemberID, String)] {
    members.compactMap { member in member.remoteAddress.map { (member.memberID, $0) } }
  }

  /// The member `id`, if it is on this side of the room (shard thread only).
  func member(_ id: MemberID) -> (any LocalMember)? {
    positions[id.raw].map { members[Int($0)] }
  }

  /// Queues `message` for this side of the room. Called under the room's lock (so a room's
  /// posts and its other tasks reach the shard in the room's order), from any thread.
  ///
  /// It joins the delivery task already queued when no task was queued on the executor
  /// since (``ShardExecutor/taskStamp`` unchanged): it then runs exactly where a task of
  /// its own would. Otherwise, and when the executor keeps no stamp, it gets a task of its
  /// own behind the others; the queued one keeps the messages it has.
  func post(_ message: ChatMessage, origin: MemberID?) {
    guard let stamp = executor.taskStamp else {
      executor.execute { self.deliverMessage(message, origin: origin) }
      return
    }
    let queue: Bool? = inbox.withLock { inbox in
      if let queuedAt = inbox.queuedAt {
        guard queuedAt == stamp else { return nil }
        inbox.messages.append(BatchedMessage(message, origin: origin))
        return false
      }
      inbox.messages.append(BatchedMessage(message, origin: origin))
      inbox.queuedAt = stamp
      return true
    }
    switch queue {
    case true?: executor.executeDelivery { self.deliverInbox() }
    case false?: break
    case nil: executor.executeDelivery { self.deliverMessage(message, origin: origin) }
    }
  }

  /// The inbox's delivery task: takes its messages (later posts queue a new task) and
  /// delivers them, one at a time when there is one, as a ``MessageBatch`` otherwise.
  private func deliverInbox() {
    var messages = spareMessages
    spareMessages = []
    inbox.withLock { inbox in
      swap(&inbox.messages, &messages)
      inbox.queuedAt = nil
    }
    if !members.isEmpty {
      shard.deliveries.add(members.count &* messages.count, ordering: .relaxed)
      if messages.count == 1 {
        deliver(messages[0].event)
      } else if !messages.isEmpty {
        var batch = MessageBatch(messages, sendNow: !executor.hasPendingTasks)
        deliver(&batch)
      }
    }
    messages.removeAll(keepingCapacity: messages.capacity <= Self.keptCapacity)
    spareMessages = messages
  }

  /// Delivers `batch` to every member on this shard.
  func deliver(_ batch: inout MessageBatch) {
    // As in ``deliver(_:cache:)``: a copy of the list keeps every member alive.
    let members = self.members
    members.withUnsafeBufferPointer { members in
      for i in members.indices {
        let object = Unmanaged.passUnretained(members[i] as AnyObject).toOpaque()
        type(of: members[i]).receive(unretained: object, batch: &batch)
      }
    }
  }

  func add(_ member: LocalMember) {
    if members.isEmpty { shard.register(self) }
    let id = member.memberID.raw
    if let index = positions[id] {
      members[Int(index)] = member  // a second add of an id replaces the member, in place
    } else {
      positions[id] = Int32(members.count)
      members.append(member)
    }
  }

  func remove(_ id: MemberID) {
    guard let index = positions.removeValue(forKey: id.raw).map(Int.init) else { return }
    let last = members.count - 1
    if index != last {
      members.swapAt(index, last)
      positions[members[index].memberID.raw] = Int32(index)
    }
    members.removeLast()
    if members.isEmpty { shard.unregister(self) }
  }

  /// Delivers one message, counted in the shard's ``HubShard/deliveries``.
  private func deliverMessage(_ message: ChatMessage, origin: MemberID?) {
    guard !members.isEmpty else { return }
    shard.deliveries.add(members.count, ordering: .relaxed)
    var cache = EncodingCache(sendNow: !executor.hasPendingTasks)
    deliver(.message(message, origin: origin), cache: &cache)
  }

  func deliver(_ event: ChatEvent) {
    guard !members.isEmpty else { return }
    var cache = EncodingCache(sendNow: !executor.hasPendingTasks)
    deliver(event, cache: &cache)
  }

  /// Delivers `event` with a cache shared across the shard's rooms (``HubShard/deliverToAll(_:)``).
  func deliver(_ event: ChatEvent, cache: inout EncodingCache) {
    // The walk goes over this copy of the list (one retain of its storage), so that a
    // member added or removed meanwhile — which the hub queues as a task, so it does not
    // happen today — neither moves the storage under the walk nor frees a member in it:
    // the copy's strong references keep every member it calls alive, which is what makes
    // the unretained call below sound.
    let members = self.members
    members.withUnsafeBufferPointer { members in
      for i in members.indices {
        // Read in place (no copy of the existential, so no retain): its type, for the
        // conformance's witness, and its address.
        let object = Unmanaged.passUnretained(members[i] as AnyObject).toOpaque()
        type(of: members[i]).receive(unretained: object, event, cache: &cache)
      }
    }
  }
}
