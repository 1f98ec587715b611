import SwitchboardWire

/// One room as the hub keeps it (inside its ``HubRoomCell``, under the cell's lock): this
/// node's members of it, the names they use, which shards they live on and the ring of its
/// recent messages, loading until the broker answered
/// ``RoomBroker/openRoom(_:recent:on:completion:)``.
struct HubRoom {
  /// Where the room is in its life on this node.
  ///
  /// ```
  /// loading ──snapshot──▶ draining ──queue empty──▶ ready ──idle grace──▶ closed
  /// ```
  enum Phase {
    /// The broker has not answered yet: joins, publishes and deliveries wait here, in
    /// arrival order, and are carried out when the snapshot arrives.
    case loading([QueuedOperation])
    /// The snapshot is in and members are admitted, but the publishes queued while
    /// loading are still being handed to the broker (outside the hub's lock): new
    /// publishes queue behind them, so each sender's messages keep their order.
    case draining([QueuedPublish])
    /// Open: publishes go straight to the broker.
    case ready
    /// Dropped from the room table after the idle grace: nothing is delivered or
    /// published here any more (the next join makes a new cell).
    case closed

    /// Whether this is ``ready``: a switch on the borrowed value (an `if case` on the
    /// stored phase copied it, a retain and a release of a queue, per publish).
    var isReady: Bool {
      switch self {
      case .ready: true
      case .loading, .draining, .closed: false
      }
    }
  }

  /// The room's members on one shard and the shard's side of the room.
  struct ShardShare {
    let room: HubShardRoom
    var members: Int
  }

  /// A publish waiting for the room.
  struct QueuedPublish {
    var draft: MessageDraft
    var answer: PendingPublish
  }

  /// Something that arrived while the room was loading.
  enum QueuedOperation {
    case join(PendingJoin)
    case publish(QueuedPublish)
    /// A message the broker delivered before its snapshot arrived.
    case delivery(ChatMessage, epoch: String, origin: MemberID?)
  }

  var phase: Phase
  /// The highest id delivered here (or in the snapshot); 0 for a new room.
  var lastID: UInt64 = 0
  var epoch: String = ""
  /// The broker's object for the room from its snapshot (``RoomSnapshot/brokerRoom``),
  /// put into every draft published here.
  var brokerRoom: BrokerRoomHandle?
  var history: MessageRing
  var members: Set<MemberID> = []
  /// The shards with members here (a few entries: at most one per loop).
  var shards: [ShardShare] = []
  /// How many members use each name (waiting joins included): what makes a unique name
  /// a dictionary lookup, not a scan of the room.
  var namesInUse: [String: Int] = [:]
  /// Publishes queued while loading (bounded by ``HubConfiguration/maxQueuedWhileLoading``).
  var queuedPublishes = 0
  /// Set when the last member left: the idle check that may drop the room after
  /// ``HubConfiguration/roomIdleGrace``; cleared by the next join.
  var idleMark: UInt64?
  /// Numbers the idle checks.
  var nextIdleMark: UInt64 = 0

  init(capacity: Int) {
    phase = .loading([])
    history = MessageRing(capacity: capacity)
  }

  /// Whether the snapshot is in (members can be admitted, deliveries applied).
  var isOpen: Bool {
    switch phase {
    case .loading, .closed: return false
    case .draining, .ready: return true
    }
  }

  /// Whether a publish goes straight to the broker (``admitPublish(limit:_:)`` says
  /// ``PublishAdmission/send``).
  /// (Not inlined: inlined, the check of the phase was moved past the lock's release and
  /// the phase retained to outlive it, a retain and a release per publish.)
  var isReady: Bool {
    @inline(never) get { phase.isReady }
  }

  /// Counts a member on `shard`; the shard's side of the room, to queue the member's add on.
  mutating func addMember(on shard: HubShard) -> HubShardRoom {
    if let i = shards.firstIndex(where: { $0.room.shard === shard }) {
      shards[i].members += 1
      return shards[i].room
    }
    let room = HubShardRoom(shard: shard)
    shards.append(ShardShare(room: room, members: 1))
    return room
  }

  /// Uncounts a member on `shard`; the shard's side of the room, to queue the removal on.
  mutating func removeMember(on shard: HubShard) -> HubShardRoom? {
    guard let i = shards.firstIndex(where: { $0.room.shard === shard }) else { return nil }
    let room = shards[i].room
    shards[i].members -= 1
    if shards[i].members == 0 { shards.remove(at: i) }
    return room
  }

  mutating func useName(_ name: String) { namesInUse[name, default: 0] += 1 }

  mutating func releaseName(_ name: String) {
    guard let count = namesInUse[name] else { return }
    namesInUse[name] = count > 1 ? count - 1 : nil
  }

  // The hot paths below are `mutating` and run in place inside the cell's `withLock`;
  // copying the room out would copy its ring's reference and member set (measured on the
  // earlier dictionary of rooms: ~180 instructions per copy, three per message).

  /// What ``receive(_:epoch:origin:capacity:)`` asks the hub to do.
  enum Delivery {
    /// Queue it on these shards; `newEpoch` when it is the first message of an epoch that
    /// replaced another (the members are told first).
    case fanOut([ShardShare], newEpoch: Bool)
    /// Nothing: the room is loading (the message waits) or already had the id.
    case none
    /// The room was closed: the caller looks for its new cell.
    case closed
  }

  /// A message the broker delivered: kept in the ring when it is new, queued while the
  /// room loads. A new epoch starts the ring afresh (the broker lost the room's history).
  mutating func receive(_ message: ChatMessage, epoch: String, origin: MemberID?, capacity: Int) -> Delivery {
    if case .closed = phase { return .closed }
    guard isOpen else {
      enqueue(.delivery(message, epoch: epoch, origin: origin))
      return .none
    }
    var replaced = false
    if epoch != self.epoch {
      replaced = !self.epoch.isEmpty
      self.epoch = epoch
      history = MessageRing(capacity: capacity)
      lastID = 0
    }
    // A replay overlapping what is already here (a snapshot, a gap fill).
    guard message.id > lastID else { return .none }
    lastID = message.id
    history.append(message)
    return .fanOut(shards, newEpoch: replaced)
  }

  /// What ``admitPublish(limit:_:)`` decided.
  enum PublishAdmission {
    /// The room is ready: hand the draft to the broker now.
    case send
    /// Queued behind the load.
    case queued
    /// Loading, and the queue is full.
    case busy
    /// The room was closed (the sender left it meanwhile).
    case closed
  }

  /// Decides a publish: straight through when ready, else queued (`publish()` makes the
  /// entry only then), unless `limit` publishes wait already.
  mutating func admitPublish(limit: Int, _ publish: () -> QueuedPublish) -> PublishAdmission {
    if isReady { return .send }
    if case .closed = phase { return .closed }
    guard queuedPublishes < limit else { return .busy }
    enqueue(publish())
    return .queued
  }

  /// Queues `operation` behind the load (only while loading).
  mutating func enqueue(_ operation: QueuedOperation) {
    guard case .loading(var queue) = phase else { preconditionFailure("HubRoom.enqueue while \(phase)") }
    phase = .ready  // drops the enum's reference, so the append does not copy the queue
    queue.append(operation)
    phase = .loading(queue)
  }

  /// Queues a publish (while loading or draining).
  mutating func enqueue(_ publish: QueuedPublish) {
    switch phase {
    case .loading: enqueue(.publish(publish))
    case .draining(var queue):
      phase = .ready
      queue.append(publish)
      phase = .draining(queue)
    case .ready, .closed: preconditionFailure("HubRoom.enqueue(publish) while \(phase)")
    }
    queuedPublishes += 1
  }
}

/// A join waiting for its room to load.
struct PendingJoin: @unchecked Sendable {
  // Safety: `member` and `completion` are used only inside tasks run by `shard`'s
  // executor (the member's own thread); the hub only carries them.
  let member: any LocalMember
  let shard: HubShard
  let serial: UInt64
  let since: UInt64?
  let epoch: String?
  let historyCount: Int
  let completion: ((JoinResult) -> Void)?
}

/// The answer a publish queued behind a loading room is waiting for.
struct PendingPublish: Sendable {
  let executor: any ShardExecutor
  let completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)?
}
