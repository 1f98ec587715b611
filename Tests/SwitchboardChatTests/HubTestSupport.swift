import Dispatch
import SwitchboardChat
import SwitchboardTestSupport
import SwitchboardWire
import Synchronization
import Testing

/// Runs shard tasks inline on the caller (the hub's ordering guarantees still apply).
struct InlineExecutor: ShardExecutor {
  func execute(_ task: @escaping @Sendable () -> Void) { task() }
}

/// Runs tasks on a serial dispatch queue (a stand-in for an event loop).
struct QueueExecutor: ShardExecutor {
  let queue: DispatchQueue
  func execute(_ task: @escaping @Sendable () -> Void) { queue.async(execute: task) }
}

/// Holds tasks until the test runs them: a broker's loader or a room's load held open.
/// Made with `stamped: true`, it keeps a task stamp (``ShardExecutor/taskStamp``) as the
/// server's event loop does: counted by `execute`, not by `executeDelivery`; otherwise it
/// keeps none, and the hub queues a task per message.
final class ManualExecutor: ShardExecutor {
  private let tasks = Mutex<[@Sendable () -> Void]>([])
  private let stamp = Atomic<UInt64>(0)
  private let stamped: Bool
  init(stamped: Bool = false) { self.stamped = stamped }
  func execute(_ task: @escaping @Sendable () -> Void) {
    stamp.add(1, ordering: .relaxed)
    tasks.withLock { $0.append(task) }
  }
  func executeDelivery(_ task: @escaping @Sendable () -> Void) { tasks.withLock { $0.append(task) } }
  var taskStamp: UInt64? { stamped ? stamp.load(ordering: .relaxed) : nil }
  var pending: Int { tasks.withLock { $0.count } }
  /// Runs what is queued now (tasks queued meanwhile wait for the next call).
  func runAll() {
    let now = tasks.withLock { t in
      defer { t.removeAll() }
      return t
    }
    for task in now { task() }
  }
  /// Runs tasks until none is left (those the tasks queue too: a room's load, its joins).
  func drain() {
    for _ in 0..<100 where pending > 0 { runAll() }
  }
}

final class RecordingMember: LocalMember {
  let memberID: MemberID
  var events: [ChatEvent] = []
  init(_ id: MemberID) { memberID = id }
  func receive(_ event: ChatEvent, cache: inout EncodingCache) { events.append(event) }
  var messages: [ChatMessage] {
    events.compactMap { if case .message(let m, _) = $0 { return m } else { return nil } }
  }
}

/// The brokers the hub's tests run against: the local broker loading rooms inline (every
/// join completes at once) and on its own queue (the first join of a room waits for the
/// load, as in the server).
enum BrokerKind: String, CaseIterable, CustomTestStringConvertible {
  case localInline
  case localQueued

  var testDescription: String { rawValue }

  func makeHub(configuration: HubConfiguration = HubConfiguration(), clock: (@Sendable () -> Int64)? = nil)
    -> ChatHub
  {
    let broker: LocalRoomBroker
    switch self {
    case .localInline:
      broker = LocalRoomBroker(retention: configuration.historyLimit, loader: InlineExecutor())
    case .localQueued: broker = LocalRoomBroker(retention: configuration.historyLimit)
    }
    return ChatHub(configuration: configuration, broker: broker, clock: clock)
  }
}

extension ChatHub {
  /// Joins and waits (with a deadline) for the join to complete.
  @discardableResult
  func joinNow(
    _ member: LocalMember, shard: HubShard, name: String, room: String, announce: Bool, since: UInt64? = nil,
    epoch: String? = nil, historyCount: Int = 0
  ) throws -> JoinResult {
    let result = Locked<JoinResult?>(nil)
    let done = Signal()
    join(
      member, shard: shard, name: name, room: room, announce: announce, since: since, epoch: epoch,
      historyCount: historyCount
    ) { r in
      result.withLock { $0 = r }
      done.fire()
    }
    guard done.wait(), let r = result.value else { throw TestFailure("join of \(room) did not complete") }
    return r
  }

  /// Publishes and waits for the receipt's id (`nil`: the member is unknown).
  func publishNow(
    from id: MemberID, text: String, ref: String? = nil, subject: String? = nil, address: String? = nil
  ) throws -> UInt64? {
    let receipt = Locked<Result<PublishReceipt, BrokerError>?>(nil)
    let done = Signal()
    guard
      publish(
        from: id, text: text, ref: ref, subject: subject, address: address,
        completion: { r in
          receipt.withLock { $0 = r }
          done.fire()
        })
    else { return nil }
    guard done.wait(), let r = receipt.value else { throw TestFailure("publish of \(text) did not complete") }
    return try r.get().id
  }
}

/// A broker the test drives by hand, standing in for a cluster broker: it answers
/// `openRoom` when told to, assigns ids like the local one, and can deliver messages "from
/// other nodes".
final class ScriptedBroker: RoomBroker {
  struct State {
    var sink: (any RoomBrokerSink)?
    var opens:
      [(
        room: String, executor: any ShardExecutor,
        completion: @Sendable (Result<RoomSnapshot, BrokerError>) -> Void
      )] = []
    var nextID: [String: UInt64] = [:]
    var epoch = "e1"
    var presence: [String] = []
    var remote: [String] = []
    var historyAsked: [UInt64] = []
    var stored: [ChatMessage] = []
    var idle: [String] = []
  }
  let state = Mutex(State())

  func attach(_ sink: any RoomBrokerSink) { state.withLock { $0.sink = sink } }

  func openRoom(
    _ room: String, recent limit: Int, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<RoomSnapshot, BrokerError>) -> Void
  ) {
    state.withLock { $0.opens.append((room, executor, completion)) }
  }

  /// Answers the oldest open request with `snapshot`.
  func answerOpen(_ snapshot: Result<RoomSnapshot, BrokerError>) {
    let open = state.withLock { s in
      let o = s.opens.removeFirst()
      if case .success(let snap) = snapshot { s.nextID[o.room] = snap.lastID + 1 }
      return o
    }
    open.executor.execute { open.completion(snapshot) }
  }

  func publish(
    _ draft: MessageDraft, on executor: (any ShardExecutor)?,
    completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)?
  ) {
    let (message, epoch) = state.withLock { s in
      let id = s.nextID[draft.room, default: 1]
      s.nextID[draft.room] = id + 1
      let m = draft.message(id: id)
      s.sink?.deliver(m, epoch: s.epoch, origin: draft.origin)
      s.stored.append(m)
      return (m, s.epoch)
    }
    let receipt = PublishReceipt(id: message.id, epoch: epoch)
    if let completion { (executor ?? InlineExecutor()).execute { completion(.success(receipt)) } }
  }

  /// A message that arrived from another node.
  func deliverRemote(_ message: ChatMessage, epoch: String) {
    state.withLock { s in s.sink?.deliver(message, epoch: epoch, origin: nil) }
  }

  func history(
    room: String, after id: UInt64, limit: Int, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[ChatMessage], BrokerError>) -> Void
  ) {
    let kept = state.withLock { s in
      s.historyAsked.append(id)
      return s.stored.filter { $0.room == room && $0.id > id }
    }
    executor.execute { completion(.success(Array(kept.prefix(limit)))) }
  }

  func presenceChanged(_ event: PresenceEvent, member: MemberID) {
    state.withLock { $0.presence.append("\(event.kind) \(event.author)") }
  }

  func remoteMembers(
    room: String, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[String], BrokerError>) -> Void
  ) {
    let remote = state.withLock { $0.remote }
    executor.execute { completion(.success(remote)) }
  }

  func roomIdle(_ room: String) { state.withLock { $0.idle.append(room) } }

  func close() { state.withLock { $0.sink = nil } }
}

/// A store that cannot load rooms and fails every write (a broken disk).
final class FailingStore: HistoryStore {
  func loadRoom(_ room: String, limit: Int) throws(StoreError) -> RoomSnapshot {
    throw StoreError("disk on fire")
  }
  func append(_ message: ChatMessage, completion: (@Sendable (Result<Void, StoreError>) -> Void)?) {
    completion?(.failure(StoreError("disk full")))
  }
  func messages(room: String, after id: UInt64, limit: Int) throws(StoreError) -> [ChatMessage] {
    throw StoreError("disk on fire")
  }
  func close() {}
}
