import Dispatch
import SwitchboardWire
import Synchronization

/// The single-node broker: ids assigned in this process, messages kept in a
/// ``HistoryStore`` (SQLite or in memory), delivered to this node's hub only.
///
/// Each room's sequence has a lock of its own (a `LocalRoomBroker.RoomSequence`), so
/// publishes to two rooms do not wait for each other here. A publish finds its room through
/// the draft's ``MessageDraft/brokerRoom`` (the room's object, handed to the hub in the
/// snapshot) or else under the broker's table lock (a dictionary look-up, nothing else),
/// then takes the room's lock once: it assigns the room's next id, hands the message to
/// the sink (the hub fans it out) and queues it in the store (or keeps it at once through
/// the store's ``HistoryRoomAppender``), all in that one order, so ids, deliveries and the
/// store's writes of a room agree. The completion runs once the store has kept the message (for
/// SQLite, after its batch committed; the SQLite store's writer and its batches stay shared
/// by all rooms).
///
/// ``openRoom(_:recent:on:completion:)`` and ``history(room:after:limit:on:completion:)``
/// read the store, which may wait on disk (a SQLite read first waits for the writes queued
/// before it): they run on `loader`, never on the caller's loop.
public final class LocalRoomBroker: RoomBroker {
  private struct Sequence {
    var nextID: UInt64
    var epoch: String
    /// The broker's sink, kept with each room so a publish takes no lock but the room's.
    var sink: (any RoomBrokerSink)?

    /// The next id, taken (in place, under the room's lock).
    mutating func take() -> (id: UInt64, epoch: String) {
      defer { nextID += 1 }
      return (nextID, epoch)
    }
  }
  /// What a client key stands for: the id its first publish got and, until the store kept
  /// that message, the answers of retries waiting for it.
  private struct KeyedPublish {
    var id: UInt64
    var epoch: String
    var kept: Bool
    var waiting: [Answer] = []
  }
  /// A publish's completion and where to run it. A class: an `Answer?` is one reference,
  /// `nil` (no allocation) when nobody waits, where the struct it was made the publish
  /// path copy an optional existential through its value witnesses (~100 instructions
  /// a copy, three copies per message).
  private final class Answer: Sendable {
    let executor: (any ShardExecutor)?
    let completion: @Sendable (Result<PublishReceipt, BrokerError>) -> Void

    init(
      executor: (any ShardExecutor)?,
      completion: @escaping @Sendable (Result<PublishReceipt, BrokerError>) -> Void
    ) {
      self.executor = executor
      self.completion = completion
    }

    func callAsFunction(_ result: Result<PublishReceipt, BrokerError>) {
      let completion = completion
      // Queued as a delivery is (not counted in the stamp): the room's next messages may
      // still join the delivery task queued before this answer, so a sender that asks for
      // acks does not cost its room a task per message. The answer still runs after its
      // own message was delivered; it may now also follow messages published after it.
      if let executor { executor.executeDelivery { completion(result) } } else { completion(result) }
    }
  }
  /// The newest client keys of one room, oldest dropped first.
  private struct ClientKeys {
    var entries: [String: KeyedPublish] = [:]
    var order: [String] = []
    var head = 0

    mutating func insert(_ key: String, _ entry: KeyedPublish) {
      entries[key] = entry
      if order.count < LocalRoomBroker.maxClientKeys {
        order.append(key)
        return
      }
      entries[order[head]] = nil
      order[head] = key
      head = (head + 1) % order.count
    }
  }
  /// One room's sequence and client keys, each under a lock of its own. `sequence` is
  /// `nil` once the broker closed. `keys` is taken inside `sequence`'s lock or alone: a
  /// store may answer an append inside the call (the in-memory one does), that is under
  /// `sequence`'s lock. It is also the room's ``RoomSnapshot/brokerRoom``: the hub hands
  /// it back with each publish, which then skips the room table.
  private final class RoomSequence: BrokerRoomHandle, @unchecked Sendable {
    // Safety: only `let`s of `Sendable` types (two `Mutex`es among them), as the checked
    // `Sendable` class this was before it became a ``BrokerRoomHandle`` (whose unchecked
    // conformance a subclass inherits).
    let sequence: Mutex<Sequence?>
    let keys = Mutex(ClientKeys())
    /// The broker that made it (a handle from another broker is not used).
    let broker: ObjectIdentifier
    let name: String
    /// The store's appender for the room when the store keeps messages at once.
    let appender: (any HistoryRoomAppender)?

    init(_ sequence: Sequence, broker: ObjectIdentifier, name: String, appender: (any HistoryRoomAppender)?) {
      self.sequence = Mutex(sequence)
      self.broker = broker
      self.name = name
      self.appender = appender
      super.init()
    }
  }
  private struct State {
    var rooms: [String: RoomSequence] = [:]
    var sink: (any RoomBrokerSink)?
    var isClosed = false
  }

  /// Client keys remembered per room: a publish re-sent with a key among the room's last
  /// 1,024 keyed publishes gets the first one's id instead of being kept again.
  public static let maxClientKeys = 1024

  /// Where messages are kept.
  public let store: any HistoryStore
  private let loader: any ShardExecutor
  /// The room table, the sink and the closed mark: held for a look-up, never while a
  /// room's lock is taken by the same call.
  private let state = Mutex(State())

  /// Makes a broker over `store`.
  /// - Parameters:
  ///   - store: where messages are kept; its `loadRoom` gives each room's last id and epoch.
  ///   - loader: runs the store's reads (which may block). Default: a serial dispatch queue
  ///     of the broker's own; tests pass an inline executor to make loading synchronous.
  public init(store: any HistoryStore, loader: (any ShardExecutor)? = nil) {
    self.store = store
    self.loader = loader ?? SerialLoader()
  }

  /// A broker over an ``InMemoryHistoryStore`` keeping `retention` messages per room.
  public convenience init(retention: Int, loader: (any ShardExecutor)? = nil) {
    self.init(store: InMemoryHistoryStore(retention: retention), loader: loader)
  }

  public func attach(_ sink: any RoomBrokerSink) {
    let rooms = state.withLock { state in
      state.sink = sink
      return Array(state.rooms.values)
    }
    // Rooms opened before (none when the hub attaches as it is made) get it too.
    for room in rooms { room.sequence.withLock { $0?.sink = sink } }
  }

  public func openRoom(
    _ room: String, recent limit: Int, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<RoomSnapshot, BrokerError>) -> Void
  ) {
    loader.execute { [self] in
      var snapshot: RoomSnapshot
      do {
        snapshot = try store.loadRoom(room, limit: limit)
      } catch {
        // The store could not load the room: carry on live with a new epoch, so clients
        // see `recovered: false` instead of a silent gap.
        snapshot = RoomSnapshot(lastID: 0, epoch: InMemoryHistoryStore.newEpoch(), recent: [])
      }
      let appender = store.immediateAppender(forRoom: room)
      let answer = state.withLock { state -> Result<RoomSnapshot, BrokerError> in
        guard !state.isClosed else { return .failure(.closed) }
        if let existing = state.rooms[room], let open = existing.sequence.withLock({ $0 }) {
          // Opened before (by another hub on this broker): its sequence stands.
          snapshot.lastID = open.nextID - 1
          snapshot.epoch = open.epoch
          snapshot.brokerRoom = existing
        } else {
          let sequence = RoomSequence(
            Sequence(nextID: snapshot.lastID + 1, epoch: snapshot.epoch, sink: state.sink),
            broker: ObjectIdentifier(self), name: room, appender: appender)
          state.rooms[room] = sequence
          snapshot.brokerRoom = sequence
        }
        return .success(snapshot)
      }
      executor.execute { completion(answer) }
    }
  }

  public func publish(
    _ draft: MessageDraft, on executor: (any ShardExecutor)?,
    completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)?
  ) {
    let answer = completion.map { Answer(executor: executor, completion: $0) }
    // The hub's handle from the snapshot when it is one of ours for this room (the room
    // table's lock and a hash of the name per message saved), else the table.
    let found: RoomSequence?
    if let room = Self.sequence(draft.brokerRoom), room.broker == ObjectIdentifier(self),
      room.name == draft.room
    {
      found = room
    } else {
      found = state.withLock { $0.isClosed ? nil : $0.rooms[draft.room] }
    }
    let failure: BrokerError?
    if let found {
      failure = found.sequence.withLock { sequence -> BrokerError? in
        // `nil`: the broker closed (after the look-up).
        guard sequence != nil else { return .closed }
        return publishLocked(draft, &sequence!, found, answer: answer)
      }
    } else {
      failure = state.withLock { $0.isClosed } ? .closed : .unavailable("room \(draft.room) is not open")
    }
    if let failure {
      state.withLock { $0.sink }?.keepFailed(room: draft.room, id: nil, error: failure)
      answer?(.failure(failure))
    }
  }

  /// The handle as one of this broker's type of room object. Out of line on purpose: a
  /// cast of the draft's field in place was compiled to two copies of the optional through
  /// generic value witnesses (~240 instructions a message); a reference passed in is
  /// cast with a plain class check.
  @inline(never)
  private static func sequence(_ handle: BrokerRoomHandle?) -> RoomSequence? {
    handle as? RoomSequence
  }

  /// A publish with the room's lock held: a retry of a kept key is answered, anything else
  /// takes the next id, is delivered and queued in the store.
  private func publishLocked(
    _ draft: MessageDraft, _ sequence: inout Sequence, _ room: RoomSequence, answer: Answer?
  ) -> BrokerError? {
    if let key = draft.clientKey {
      let epoch = sequence.epoch
      let retry = room.keys.withLock { keys -> Result<PublishReceipt, BrokerError>?? in
        guard let first = keys.entries[key], first.epoch == epoch else { return nil }
        // A retry: the message was delivered once already; answer as the first publish is.
        if first.kept { return .some(.success(PublishReceipt(id: first.id, epoch: first.epoch))) }
        if let answer { keys.entries[key]!.waiting.append(answer) }
        return .some(nil)
      }
      if let retry {
        if let retry { answer?(retry) }
        return nil
      }
    }
    let (id, epoch) = sequence.take()
    let message = draft.message(id: id)
    let key = draft.clientKey
    if let key {
      room.keys.withLock { $0.insert(key, KeyedPublish(id: id, epoch: epoch, kept: false)) }
    }
    sequence.sink?.deliver(message, epoch: epoch, origin: draft.origin)
    // Kept after the delivery, so an `ack` never overtakes the message; under the room's
    // lock, so the store sees the room's messages in id order.
    if let appender = room.appender {
      // Kept before `append` returns and never fails: answered here, with no completion
      // closure per message (and nothing at all when nobody waits for the answer).
      appender.append(message)
      if key != nil || answer != nil {
        stored(.success(()), id: id, epoch: epoch, key: key, room: room, sink: sequence.sink, answer: answer)
      }
    } else {
      let sink = sequence.sink
      store.append(message) { [self] result in
        stored(result, id: id, epoch: epoch, key: key, room: room, sink: sink, answer: answer)
      }
    }
    return nil
  }

  /// The store answered for message `id`: its publish and the retries of its key are
  /// answered, a failure reported to the sink.
  private func stored(
    _ result: Result<Void, StoreError>, id: UInt64, epoch: String, key: String?, room: RoomSequence,
    sink: (any RoomBrokerSink)?, answer: Answer?
  ) {
    let retries = key.map { kept(key: $0, room: room, result) } ?? []
    switch result {
    case .success:
      let receipt = PublishReceipt(id: id, epoch: epoch)
      answer?(.success(receipt))
      for retry in retries { retry(.success(receipt)) }
    case .failure(let error):
      let failure = BrokerError.notStored(error, id: id)
      sink?.keepFailed(room: room.name, id: id, error: failure)
      answer?(.failure(failure))
      for retry in retries { retry(.failure(failure)) }
    }
  }

  /// The store answered for the first publish of a client key: later retries are answered
  /// at once; a message not kept forgets its key (a retry is kept anew). Returns the
  /// retries that waited.
  private func kept(key: String, room: RoomSequence, _ result: Result<Void, StoreError>) -> [Answer] {
    room.keys.withLock { keys in
      guard let entry = keys.entries[key] else { return [] }
      if case .success = result {
        keys.entries[key]!.kept = true
        keys.entries[key]!.waiting = []
      } else {
        keys.entries[key] = nil
      }
      return entry.waiting
    }
  }

  public func history(
    room: String, after id: UInt64, limit: Int, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[ChatMessage], BrokerError>) -> Void
  ) {
    loader.execute { [store] in
      let result: Result<[ChatMessage], BrokerError>
      do throws(StoreError) {
        result = .success(try store.messages(room: room, after: id, limit: limit))
      } catch {
        result = .failure(.unavailable("cannot read history: \(error)"))
      }
      executor.execute { completion(result) }
    }
  }

  /// Nothing to share: this node's members are all there are.
  public func presenceChanged(_ event: PresenceEvent, member: MemberID) {}

  /// Always empty: a single node has no remote members.
  public func remoteMembers(
    room: String, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[String], BrokerError>) -> Void
  ) {
    executor.execute { completion(.success([])) }
  }

  /// Forgets the room's client keys (the hub's grace, 30 s by default, outlasts a client's
  /// reconnect); its sequence stays, so a reopened room goes on with the next id in the
  /// same epoch, its history read from the store.
  public func roomIdle(_ room: String) {
    state.withLock { $0.rooms[room] }?.keys.withLock { $0 = ClientKeys() }
  }

  /// The store's rooms and those opened since it started, at most `limit`.
  public func knownRooms(limit: Int) -> [String] {
    var names = Set(store.roomNames(limit: limit))
    for name in state.withLock({ Array($0.rooms.keys) }) where names.count < limit { names.insert(name) }
    return Array(names)
  }

  /// Commits what the store holds and closes it; later publishes fail with ``BrokerError/closed``.
  public func close() {
    let rooms = state.withLock { state in
      state.isClosed = true
      state.sink = nil
      return Array(state.rooms.values)
    }
    // Waits for publishes inside a room's lock; later ones find the room closed.
    for room in rooms { room.sequence.withLock { $0 = nil } }
    store.close()
  }
}

/// The default loader: one serial queue per broker, so rooms load in request order off
/// every event loop.
private struct SerialLoader: ShardExecutor {
  let queue = DispatchQueue(label: "switchboard.room-loader")
  func execute(_ task: @escaping @Sendable () -> Void) { queue.async(execute: task) }
}
