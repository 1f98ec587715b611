/// One room as the hub keeps it: this node's members of it and the ring of its recent
/// messages, loading until the broker answered ``RoomBroker/openRoom(_:recent:on:completion:)``.
struct HubRoom {
  /// Where the room is in its life on this node.
  ///
  /// ```
  /// loading ──snapshot──▶ draining ──queue empty──▶ ready
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
  var history: MessageRing
  var members: Set<MemberID> = []
  var shardCounts: [Int: Int] = [:]
  /// Publishes queued while loading (bounded by ``HubConfiguration/maxQueuedWhileLoading``).
  var queuedPublishes = 0

  init(capacity: Int) {
    phase = .loading([])
    history = MessageRing(capacity: capacity)
  }

  /// Whether the snapshot is in (members can be admitted, deliveries applied).
  var isOpen: Bool {
    if case .loading = phase { return false }
    return true
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
    case .ready: preconditionFailure("HubRoom.enqueue(publish) while ready")
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
