import Dispatch
import SwitchboardChat
import SwitchboardIO
import SwitchboardLog
import SwitchboardRESP
import Synchronization

/// The cluster broker: rooms shared by every node connected to one Redis (`serve --redis`).
///
/// - **Publish** runs one Lua script (``RedisBrokerScripts/publish``) that assigns the
///   room's next id with `HINCRBY` on its meta hash, appends the message to the room's
///   stream (`XADD … MAXLEN historyLimit <id>-0`) and `PUBLISH`es it on the room's channel,
///   atomically. Each publish carries an idempotency key — the client's
///   (``MessageDraft/clientKey``) when it sent a `ref`, else the node's ref (node id and a
///   counter) — kept for ``RedisBrokerConfiguration/refLifetime`` seconds, so a publish
///   retried after a lost connection, by this node or by the client on any node, gets its
///   first id back instead of being stored twice.
/// - **Fan-out**: one ``RedisSubscriber`` per node, subscribed to the channel of every
///   room opened here. What arrives — and the script's own answer — goes through the
///   room's ``RedisRoomSequence``: delivered once, in id order; a gap is filled from the
///   stream before anything after it is delivered.
/// - **Epochs**: the meta hash holds the room's epoch; a missing hash means Redis lost the
///   room, and the next script to touch it starts a new epoch (clients then resume with
///   `recovered: false`). So does a script that finds Redis lost acknowledged writes after
///   a failover: a `last` id below one this node saw, or — at a re-sync — another body (or
///   none) at the newest id this node delivered.
/// - **Presence**: each node keeps its announced members in the room's sorted set, scored
///   by expiry, refreshed every ``RedisBrokerConfiguration/presenceRefresh``. Each join,
///   leave and rename changes the set and is announced on the room's channel in one
///   script (``RedisBrokerScripts/presence``), with the cluster-wide count; the other
///   nodes show it through ``RoomBrokerSink/remotePresence(_:)``, this node through
///   ``RoomBrokerSink/ownPresence(_:member:)`` once the script answered with that count
///   (``showsOwnPresence``), so every node shows the same count for one change.
/// - **Idle rooms**: ``roomIdle(_:)`` unsubscribes the room's channel and forgets it; the
///   next ``openRoom(_:recent:on:completion:)`` subscribes and reads its state again.
///
/// Everything runs on the broker's own event loop; completions are handed to the
/// caller's executor. See docs/SCALING.md, "The Redis broker".
public final class RedisRoomBroker: RoomBroker {
  private struct Waiter {
    var id: UInt64
    var epoch: String
    var executor: (any ShardExecutor)?
    var completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)?
  }
  private struct Opener {
    var limit: Int
    var executor: any ShardExecutor
    var completion: @Sendable (Result<RoomSnapshot, BrokerError>) -> Void
  }
  /// A message a script compares with the stream's entry at its id
  /// (``RedisBrokerScripts/read``): the epoch, the id and the SHA-1 of its body.
  private struct Checkpoint: Equatable {
    var epoch: String
    var id: UInt64
    var digest: String

    init(epoch: String, message: ChatMessage) {
      self.epoch = epoch
      id = message.id
      digest = RedisScript.sha1Hex(RedisBrokerPayload.body(message))
    }
  }
  private struct Room {
    let keys: RedisRoomKeys
    var sequence = RedisRoomSequence()
    var waiters: [Waiter] = []
    var openers: [Opener] = []
    /// The newest message delivered here and its epoch: what a re-sync compares with the
    /// stream's entry at its id (``RedisBrokerScripts/read``). Only assigned on delivery; its
    /// body's digest is computed when a connection is lost, or at a re-sync.
    var newest: (epoch: String, message: ChatMessage)?
    /// The newest message delivered before a connection to Redis was lost: every script of
    /// the room — publish, fill or re-sync — compares it until one has answered, so a
    /// publish sent before the re-sync cannot take an id handed out again unnoticed.
    var checkpoint: Checkpoint?
  }
  /// Whether Redis answers, as far as this node knows (for the one-line-per-outage log
  /// and ``health``).
  private enum Reachability {
    case reachable
    /// Lost at `since` (ms since 1970).
    case unreachable(since: Int64)
  }
  /// Whether the pub/sub connection delivers (``RedisProbe``).
  private enum PubSubHealth {
    case delivering
    /// The connection was lost (Redis away: the command connection's line says so).
    case lost(since: Int64)
    /// The probe found it silent; it is being replaced (logged once, with its return).
    case replacing(since: Int64)
  }
  private struct State {
    var sink: (any RoomBrokerSink)?
    var isClosed = false
    var rooms: [String: Room] = [:]
    /// Channel name → room.
    var channels: [String: String] = [:]
    /// Refs of this node's publishes whose payload may still arrive, → their origin.
    var inFlight: [String: MemberID?] = [:]
    var nextRef: UInt64 = 0
    /// This node's announced members, per room: member → name.
    var local: [String: [MemberID: String]] = [:]
    var reachability = Reachability.reachable
    var pubsub = PubSubHealth.delivering
    var probe = RedisProbe()
    var subscriberConnects = 0
    var refresh: Scheduled?
    var probeTimer: Scheduled?
    /// Presence refreshes sent (for tests that wait for one).
    var refreshes = 0
    /// Rooms this node found to have lost acknowledged writes (moved to a new epoch).
    var lostWrites = 0
    /// Pub/sub connections the probe found silent and replaced, per server (`host:port`:
    /// the one server, or a cluster master).
    var replacements: [String: Int] = [:]
  }

  /// How it works.
  public let configuration: RedisBrokerConfiguration
  /// The loop the broker's connections and state live on.
  public let loop: EventLoop
  private let state = Mutex(State())
  private let connections = Mutex<RedisBrokerConnections?>(nil)
  /// How many entries a gap fill reads at a time.
  private static let fillCount = 1000

  private init(configuration: RedisBrokerConfiguration, loop: EventLoop) {
    self.configuration = configuration
    self.loop = loop
  }

  /// Connects to Redis and returns a broker once both its connections (commands and
  /// pub/sub) are ready. Blocks the calling thread (call it at start, off any loop). Every
  /// connection is named `switchboard-<node>` (``RedisConfiguration/clientName``, unless the
  /// configuration names it), so `CLIENT LIST` tells the nodes apart.
  /// - Throws: ``RedisError`` when Redis cannot be reached or refuses the login — a node
  ///   never falls back to serving alone.
  public static func connect(configuration: RedisBrokerConfiguration) throws(RedisError) -> RedisRoomBroker {
    var configuration = configuration
    if configuration.redis.clientName == nil {
      configuration.redis.clientName = "switchboard-\(configuration.nodeID)"
    }
    let loop: EventLoop
    do {
      loop = try EventLoop()
    } catch {
      throw RedisError.connectFailed("cannot start the broker's event loop: \(error)")
    }
    let broker = RedisRoomBroker(configuration: configuration, loop: loop)
    let outcome = Mutex<(commands: Bool?, pubsub: Bool?)>((nil, nil))
    let settled = DispatchSemaphore(value: 0)
    // The first attempt decides: ready → on; backing off before ever ready → fail.
    let first: @Sendable (Bool, RedisConnectionState) -> Void = { isCommands, next in
      let decided: Bool? =
        switch next {
        case .ready: true
        case .backingOff, .closed: false
        default: nil
        }
      guard let decided else { return }
      let done = outcome.withLock { o -> Bool in
        if isCommands {
          guard o.commands == nil else { return false }
          o.commands = decided
        } else {
          guard o.pubsub == nil else { return false }
          o.pubsub = decided
        }
        return o.commands != nil && o.pubsub != nil || !decided
      }
      if done { settled.signal() }
    }
    let made: RedisBrokerConnections
    do {
      // One server or a cluster (RedisBrokerConnections): the broker's code is the same.
      made = try RedisBrokerConnections.make(
        configuration, on: loop,
        commandsChanged: { next in
          first(true, next)
          broker.commandsChanged(next)
        },
        subscriberChanged: { next in
          first(false, next)
          broker.subscriberChanged(next)
        },
        handler: { broker.received($0) })
    } catch {
      loop.shutdownGracefully()
      throw error
    }
    let client = made.client
    broker.connections.withLock { $0 = made }
    let wait = configuration.redis.connectTimeout + .seconds(1)
    let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
    let timedOut = settled.wait(timeout: .now() + seconds) == .timedOut
    let ok = outcome.withLock { $0.commands == true && $0.pubsub == true }
    guard !timedOut, ok else {
      let reason = client.lastError?.description ?? "no answer within \(wait)"
      broker.close()
      throw RedisError.connectFailed("cannot reach Redis at \(configuration.redis.url): \(reason)")
    }
    let every = configuration.presenceRefresh
    let timer = loop.scheduleRepeating(every: every) { broker.refreshPresence() }
    broker.state.withLock { $0.refresh = timer }
    // One probe for a classic subscription; one per master connection on a cluster.
    if let subscriber = made.subscriber as? RedisSubscriber { broker.startProbing(subscriber) }
    if let shards = made.subscriber as? RedisClusterSubscriber { broker.startProbing(shards) }
    return broker
  }

  /// Whether this node can publish and deliver: unavailable while the command connection
  /// to Redis is lost, or while the pub/sub connection is lost or being replaced.
  public var health: BrokerHealth {
    state.withLock { state in
      if case .unreachable(let since) = state.reachability {
        return .unavailable(since: since, reason: "redis unreachable")
      }
      switch state.pubsub {
      case .delivering: return .ready
      case .lost(let since): return .unavailable(since: since, reason: "redis pub/sub connection lost")
      case .replacing(let since): return .unavailable(since: since, reason: "redis pub/sub connection silent")
      }
    }
  }

  private var client: (any RedisBrokerCommands)? { connections.withLock { $0?.client } }

  /// Whether the broker talks to a Redis Cluster (slot routing, sharded pub/sub).
  public var isCluster: Bool { connections.withLock { $0?.isCluster ?? false } }

  // MARK: RoomBroker

  public func attach(_ sink: any RoomBrokerSink) {
    state.withLock { $0.sink = sink }
  }

  public func openRoom(
    _ room: String, recent limit: Int, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<RoomSnapshot, BrokerError>) -> Void
  ) {
    let opener = Opener(limit: limit, executor: executor, completion: completion)
    loop.execute { [self] in
      enum Next {
        case closed
        case subscribe(RedisRoomKeys)
        case wait
        case read(RedisRoomKeys)
      }
      let next = state.withLock { state -> Next in
        guard !state.isClosed else { return .closed }
        guard let existing = state.rooms[room] else {
          let keys = RedisRoomKeys(room: room)
          var fresh = Room(keys: keys)
          fresh.openers.append(opener)
          state.rooms[room] = fresh
          state.channels[keys.channel] = room
          return .subscribe(keys)
        }
        if existing.sequence.phase == .opening {
          state.rooms[room]!.openers.append(opener)
          return .wait
        }
        state.rooms[room]!.openers.append(opener)
        return .read(existing.keys)
      }
      switch next {
      case .closed: executor.execute { completion(.failure(.closed)) }
      case .wait: break
      case .read(let keys): readForOpen(room, keys: keys)
      case .subscribe(let keys): subscribe(room, keys: keys)
      }
    }
  }

  public func publish(
    _ draft: MessageDraft, on executor: (any ShardExecutor)?,
    completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)?
  ) {
    let deadline = ContinuousClock.now + configuration.publishTimeout
    loop.execute { [self] in
      let ref = state.withLock { state -> String? in
        guard !state.isClosed, state.rooms[draft.room] != nil else { return nil }
        state.nextRef += 1
        let ref = "\(configuration.nodeID):\(state.nextRef)"
        state.inFlight[ref] = draft.origin
        return ref
      }
      guard let ref else {
        let closed = state.withLock { $0.isClosed }
        fail(
          draft.room, closed ? .closed : .unavailable("room \(draft.room) is not open"), executor,
          completion)
        return
      }
      attempt(draft, ref: ref, deadline: deadline, executor: executor, completion: completion)
    }
  }

  public func history(
    room: String, after id: UInt64, limit: Int, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[ChatMessage], BrokerError>) -> Void
  ) {
    loop.execute { [self] in
      read(room, keys: RedisRoomKeys(room: room), after: id, count: limit, known: seen(room)) { result in
        let answer = result.map(\.messages)
        executor.execute { completion(answer) }
      }
    }
  }

  public func presenceChanged(_ event: PresenceEvent, member: MemberID) {
    loop.execute { [self] in
      let keys = RedisRoomKeys(room: event.room)
      let (stale, fresh) = state.withLock { state -> (String?, String?) in
        var members = state.local[event.room, default: [:]]
        let old = members[member].map { entry(member, name: $0) }
        switch event.kind {
        case .join, .rename: members[member] = event.author
        case .leave: members[member] = nil
        }
        state.local[event.room] = members.isEmpty ? nil : members
        let new = members[member].map { entry(member, name: $0) }
        return (old == new ? nil : old, new)
      }
      guard let client, stale != nil || fresh != nil else { return showOwn(event, member: member) }
      let arguments: [[UInt8]] = [
        Array((stale ?? "").utf8), Array((fresh ?? "").utf8), Array(String(expiry()).utf8),
        Array(String(ChatClock.milliseconds()).utf8), Array(keys.channel.utf8),
        RedisBrokerPayload.presenceTail(event, node: configuration.nodeID),
      ]
      let script = connections.withLock { $0?.presence } ?? RedisBrokerScripts.presence
      // The line shown here carries the count the script computed, as on the other nodes;
      // without an answer (Redis away), the hub's own count.
      client.eval(script, keys: [Array(keys.members.utf8)], arguments: arguments) { [self] result in
        var shown = event
        if case .success(let reply) = result, let count = reply.integer, count >= 0 { shown.members = Int(count) }
        showOwn(shown, member: member)
      }
    }
  }

  /// The hub leaves its members' presence lines to the broker (``presenceChanged(_:member:)``).
  public var showsOwnPresence: Bool { true }

  /// Hands a presence change of this node back to the hub to show.
  private func showOwn(_ event: PresenceEvent, member: MemberID) {
    state.withLock { $0.sink }?.ownPresence(event, member: member)
  }

  /// Unsubscribes the room's channel and forgets the room (its presence refresh too); a
  /// later ``openRoom(_:recent:on:completion:)`` starts afresh, reading the room's state.
  public func roomIdle(_ room: String) {
    loop.execute { [self] in
      let (keys, waiters) = state.withLock { state -> (RedisRoomKeys?, [Waiter]) in
        guard !state.isClosed, let gone = state.rooms.removeValue(forKey: room) else { return (nil, []) }
        state.channels[gone.keys.channel] = nil
        state.local[room] = nil
        return (gone.keys, gone.waiters)
      }
      Self.answer(waiters)
      guard let keys, let subscriber = connections.withLock({ $0?.subscriber }) else { return }
      Task { [self] in
        try? await subscriber.unsubscribe([keys.channel])
        loop.execute { self.resubscribeIfReopened(room, keys: keys) }
      }
    }
  }

  /// An unsubscription finished: if the room was opened again meanwhile, its subscription
  /// may have been made before the unsubscription reached Redis — make it again, then
  /// read what pub/sub may have missed.
  private func resubscribeIfReopened(_ room: String, keys: RedisRoomKeys) {
    guard state.withLock({ !$0.isClosed && $0.rooms[room] != nil }),
      let subscriber = connections.withLock({ $0?.subscriber })
    else { return }
    Task { [self] in
      try? await subscriber.subscribe([keys.channel])
      loop.execute { [self] in
        let after = state.withLock { state -> UInt64? in
          guard state.rooms[room]?.sequence.resync() == true else { return nil }
          return state.rooms[room]!.sequence.delivered
        }
        if let after { fill(room, keys: keys, after: after, resync: true) }
      }
    }
  }

  public func remoteMembers(
    room: String, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[String], BrokerError>) -> Void
  ) {
    loop.execute { [self] in
      guard let client else { return executor.execute { completion(.failure(.closed)) } }
      let now = String(ChatClock.milliseconds())
      let own = configuration.nodeID + "|"
      client.send(RESPCommand("ZRANGEBYSCORE", RedisRoomKeys(room: room).members, now, "+inf")) { result in
        let answer = result.map { reply -> [String] in
          (reply.elements ?? []).compactMap { element -> String? in
            guard let text = element.string, !text.hasPrefix(own) else { return nil }
            let parts = text.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
            return parts.count == 3 ? String(parts[2]) : nil
          }
        }
        .mapError { BrokerError.unavailable("cannot read presence: \($0)") }
        executor.execute { completion(answer) }
      }
    }
  }

  /// Removes this node's presence entries (waiting at most a second), stops delivering and
  /// closes the connections and the loop. Call from any thread but the broker's loop.
  public func close() { close(goodbye: true) }

  /// Closes without removing this node's presence entries, as a node that died would
  /// (for tests of presence ageing out).
  func closeWithoutGoodbye() { close(goodbye: false) }

  private func close(goodbye: Bool) {
    let (rooms, timer) = state.withLock { state -> ([String: [MemberID: String]], Scheduled?) in
      guard !state.isClosed else { return ([:], nil) }
      state.isClosed = true
      state.sink = nil
      defer { state.local = [:] }
      return (goodbye ? state.local : [:], state.refresh)
    }
    timer?.cancel()
    state.withLock { $0.probeTimer }?.cancel()
    let done = DispatchSemaphore(value: 0)
    let pair = connections.withLock { $0 }
    loop.execute { [self] in
      guard let client = pair?.client, !rooms.isEmpty else {
        done.signal()
        return
      }
      let remaining = Mutex(rooms.count)
      for (room, members) in rooms {
        let names = members.map { entry($0.key, name: $0.value) }
        client.send(RESPCommand(["ZREM", RedisRoomKeys(room: room).members] + names), timeout: .seconds(1)) {
          _ in
          if remaining.withLock({ count in
            count -= 1
            return count == 0
          }) {
            done.signal()
          }
        }
      }
    }
    _ = done.wait(timeout: .now() + 1.5)
    pair?.client.close()
    pair?.subscriber.close()
    if !loop.inEventLoop { loop.shutdownGracefully() }
    state.withLock { state in
      state.rooms = [:]
      state.inFlight = [:]
    }
  }

  // MARK: Opening

  private func subscribe(_ room: String, keys: RedisRoomKeys) {
    guard let subscriber = connections.withLock({ $0?.subscriber }) else { return }
    Task { [self] in
      do throws(RedisError) {
        try await subscriber.subscribe([keys.channel])
        loop.execute { self.readForOpen(room, keys: keys) }
      } catch {
        loop.execute { self.openFailed(room, keys: keys, error: error) }
      }
    }
  }

  /// The room could not be opened now: tell whoever waits, and keep trying (the
  /// subscription stands; the next answer opens the room).
  private func openFailed(_ room: String, keys: RedisRoomKeys, error: RedisError) {
    let (openers, closed) = state.withLock { state -> ([Opener], Bool) in
      guard state.rooms[room] != nil else { return ([], state.isClosed) }
      defer { state.rooms[room]!.openers = [] }
      return (state.rooms[room]!.openers, state.isClosed)
    }
    for opener in openers {
      opener.executor.execute { opener.completion(.failure(.unavailable("cannot open the room: \(error)"))) }
    }
    guard !closed else { return }
    _ = loop.schedule(after: .milliseconds(500)) { [self] in readForOpen(room, keys: keys) }
  }

  private func readForOpen(_ room: String, keys: RedisRoomKeys) {
    let limit = state.withLock { $0.rooms[room]?.openers.map(\.limit).max() ?? 0 }
    read(room, keys: keys, newest: limit) { [self] result in
      switch result {
      case .failure(let error):
        openFailed(room, keys: keys, error: RedisError.connectionLost("\(error)"))
      case .success(let answer):
        let recent = answer.messages.reversed() as [ChatMessage]
        let last = max(answer.last, recent.last?.id ?? 0)
        let openers = state.withLock { state -> [Opener] in
          guard state.rooms[room] != nil else { return [] }
          if state.rooms[room]!.sequence.phase == .opening {
            if let newest = recent.last, newest.id == last { state.rooms[room]!.newest = (answer.epoch, newest) }
            let step = state.rooms[room]!.sequence.open(last: last, epoch: answer.epoch)
            apply(&state, room: room, step)
          }
          defer { state.rooms[room]!.openers = [] }
          return state.rooms[room]!.openers
        }
        for opener in openers {
          let snapshot = RoomSnapshot(
            lastID: last, epoch: answer.epoch, recent: Array(recent.suffix(opener.limit)))
          opener.executor.execute { opener.completion(.success(snapshot)) }
        }
      }
    }
  }

  // MARK: Publishing

  private func attempt(
    _ draft: MessageDraft, ref: String, deadline: ContinuousClock.Instant, executor: (any ShardExecutor)?,
    completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)?
  ) {
    let remaining = deadline - ContinuousClock.now
    guard let client, remaining > .zero else {
      state.withLock { _ = $0.inFlight.removeValue(forKey: ref) }
      return fail(draft.room, .unavailable("Redis did not answer in time"), executor, completion)
    }
    let keys = RedisRoomKeys(room: draft.room)
    let body = RedisBrokerPayload.body(draft.content)
    let (known, check) = scriptContext(draft.room, resync: false)
    let arguments: [[UInt8]] = [
      Array(keys.channel.utf8), Array(String(max(1, configuration.historyLimit)).utf8),
      Array(InMemoryHistoryStore.newEpoch().utf8), body, Array(ref.utf8),
      Array(String(configuration.refLifetime).utf8), Array(known.epoch.utf8), Array(String(known.id).utf8),
      Array(String(check?.id ?? 0).utf8), Array((check?.digest ?? "").utf8),
    ]
    client.eval(
      connections.withLock { $0?.publish } ?? RedisBrokerScripts.publish,
      keys: [keys.meta, keys.log, keys.ref(draft.clientKey ?? ref)].map { Array($0.utf8) },
      arguments: arguments, timeout: remaining
    ) { [self] result in
      switch result {
      case .success(let reply):
        guard let values = reply.elements, values.count == 5, let id = values[0].integer, id > 0,
          let epoch = values[1].string
        else {
          state.withLock { _ = $0.inFlight.removeValue(forKey: ref) }
          return fail(draft.room, .unavailable("unexpected publish reply \(reply)"), executor, completion)
        }
        checked(draft.room, check)
        if let lost = values[3].integer, lost >= 0 {
          lostWrites(draft.room, known: known, last: lost, epoch: epoch, why: values[4].string ?? "")
        }
        let message = draft.message(id: UInt64(id))
        let waiter = Waiter(id: UInt64(id), epoch: epoch, executor: executor, completion: completion)
        let seenBefore = values[2].integer == 1
        let fill = state.withLock { state -> (RedisRoomKeys, UInt64)? in
          state.inFlight[ref] = nil
          guard state.rooms[draft.room] != nil else {
            // The room went idle meanwhile: nothing here waits for its delivery.
            Self.answer([waiter])
            return nil
          }
          state.rooms[draft.room]!.waiters.append(waiter)
          guard seenBefore, draft.clientKey != nil else {
            let step = state.rooms[draft.room]!.sequence.receive(message, epoch: epoch, origin: draft.origin)
            apply(&state, room: draft.room, step)
            return nil
          }
          // A client's retry: the first publish (maybe on another node) was announced with
          // its own content; answer once it is delivered here, reading the stream if it
          // has not arrived (its announcement may have been lost with a connection).
          apply(&state, room: draft.room, RedisRoomSequence.Step())
          let room = state.rooms[draft.room]!
          guard room.waiters.contains(where: { $0.id == UInt64(id) && $0.epoch == epoch }),
            state.rooms[draft.room]!.sequence.resync()
          else { return nil }
          return (room.keys, room.sequence.delivered)
        }
        if let (keys, after) = fill { self.fill(draft.room, keys: keys, after: after) }
      case .failure(let error) where error.kind == .connectionLost || error.kind == .timeout:
        // It may have run: send it again with the same ref, which returns the first id.
        attempt(draft, ref: ref, deadline: deadline, executor: executor, completion: completion)
      case .failure(let error):
        state.withLock { _ = $0.inFlight.removeValue(forKey: ref) }
        fail(draft.room, .unavailable("publish failed: \(error)"), executor, completion)
      }
    }
  }

  private func fail(
    _ room: String, _ error: BrokerError, _ executor: (any ShardExecutor)?,
    _ completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)?
  ) {
    state.withLock { $0.sink }?.keepFailed(room: room, id: nil, error: error)
    guard let completion else { return }
    if let executor { executor.execute { completion(.failure(error)) } } else { completion(.failure(error)) }
  }

  // MARK: Delivering

  /// A pub/sub message (on the loop).
  private func received(_ message: RedisPubSubMessage) {
    if message.channel == probeChannel {
      guard let token = UInt64(String(decoding: message.payload, as: UTF8.self)) else { return }
      return state.withLock { $0.probe.arrived(token: token) }
    }
    if RedisBrokerPayload.isPresence(message.payload) { return receivedPresence(message) }
    state.withLock { state in
      guard let room = state.channels[message.channel] else { return }
      guard let payload = try? RedisBrokerPayload.decodePayload(message.payload, room: room) else {
        configuration.logger.warning("undecodable payload on \(message.channel) ignored")
        return
      }
      let origin = state.inFlight[payload.ref] ?? nil
      let step = state.rooms[room]!.sequence.receive(payload.message, epoch: payload.epoch, origin: origin)
      apply(&state, room: room, step)
    }
  }

  /// A presence announcement: another node's join, leave or rename, shown here.
  private func receivedPresence(_ message: RedisPubSubMessage) {
    let (room, sink) = state.withLock { ($0.channels[message.channel], $0.sink) }
    guard let room, let sink else { return }
    guard let (event, node) = try? RedisBrokerPayload.decodePresence(message.payload, room: room) else {
      configuration.logger.warning("undecodable presence announcement on \(message.channel) ignored")
      return
    }
    guard node != configuration.nodeID else { return }
    sink.remotePresence(event)
  }

  /// Delivers what `step` says, answers the publishes it completed, and starts a fill.
  private func apply(_ state: inout State, room: String, _ step: RedisRoomSequence.Step) {
    let epoch = state.rooms[room]!.sequence.epoch
    if let sink = state.sink {
      for (message, origin) in step.deliver { sink.deliver(message, epoch: epoch, origin: origin) }
    }
    if let (message, _) = step.deliver.last { state.rooms[room]!.newest = (epoch, message) }
    let delivered = state.rooms[room]!.sequence.delivered
    var waiting: [Waiter] = []
    var done: [Waiter] = []
    for waiter in state.rooms[room]!.waiters {
      if waiter.epoch == epoch && waiter.id > delivered {
        waiting.append(waiter)
      } else {
        done.append(waiter)
      }
    }
    state.rooms[room]!.waiters = waiting
    Self.answer(done)
    if step.fill {
      let keys = state.rooms[room]!.keys
      let after = delivered
      loop.execute { [self] in fill(room, keys: keys, after: after) }
    }
  }

  /// Completes publishes whose message was delivered (or whose room is gone here).
  private static func answer(_ waiters: [Waiter]) {
    for waiter in waiters {
      guard let completion = waiter.completion else { continue }
      let receipt = PublishReceipt(id: waiter.id, epoch: waiter.epoch)
      if let executor = waiter.executor {
        executor.execute { completion(.success(receipt)) }
      } else {
        completion(.success(receipt))
      }
    }
  }

  /// Reads the stream after `after` into the room's sequence. A `resync` (after a
  /// reconnect) also has the script compare the newest message delivered here with the
  /// stream's entry at its id (``RedisBrokerScripts/read``).
  private func fill(_ room: String, keys: RedisRoomKeys, after: UInt64, resync: Bool = false) {
    let (known, check) = scriptContext(room, resync: resync)
    read(room, keys: keys, after: after, count: Self.fillCount, known: known, check: check) { [self] result in
      state.withLock { state in
        guard state.rooms[room] != nil else { return }
        switch result {
        case .success(let answer) where answer.epoch != state.rooms[room]!.sequence.epoch && after > 0:
          // Redis lost the room: the new epoch's history starts at 1, read it from there.
          loop.execute { [self] in fill(room, keys: keys, after: 0) }
        case .success(let answer):
          let step = state.rooms[room]!.sequence.filled(
            answer.messages, epoch: answer.epoch, complete: answer.messages.count < Self.fillCount)
          apply(&state, room: room, step)
        case .failure:
          state.rooms[room]!.sequence.fillFailed()
        }
      }
    }
  }

  // MARK: Reading

  private struct ReadAnswer {
    var epoch: String
    var last: UInt64
    var messages: [ChatMessage]
    /// The last id Redis held when the read found lost writes (the room's epoch was
    /// replaced), else `nil`.
    var lost: Int64?
    /// What the script found when `lost` is set (``lostWrites(_:known:last:epoch:why:)``).
    var why = ""
  }

  /// What this node has seen of a room: its epoch and the highest id in it (`("", 0)` for
  /// a room not open here: nothing to compare with). On the loop.
  private func seen(_ room: String) -> (epoch: String, id: UInt64) {
    state.withLock { state in
      guard let sequence = state.rooms[room]?.sequence, sequence.phase != .opening else { return ("", 0) }
      return (sequence.epoch, sequence.highest)
    }
  }

  /// What a script of `room` sends beside its own arguments, read under one lock: what this
  /// node has seen (``seen(_:)``), and what it compares with the stream — the checkpoint a
  /// lost connection left, else for a `resync` the newest message delivered here, in the
  /// room's current epoch only (its digest computed after unlocking). On the loop.
  private func scriptContext(_ room: String, resync: Bool) -> (known: (epoch: String, id: UInt64), check: Checkpoint?) {
    typealias Newest = (epoch: String, message: ChatMessage)
    let (known, checkpoint, newest) = state.withLock { state -> ((epoch: String, id: UInt64), Checkpoint?, Newest?) in
      guard let room = state.rooms[room], room.sequence.phase != .opening else { return (("", 0), nil, nil) }
      let known = (room.sequence.epoch, room.sequence.highest)
      if let checkpoint = room.checkpoint, checkpoint.epoch == room.sequence.epoch { return (known, checkpoint, nil) }
      guard resync, let newest = room.newest, newest.epoch == room.sequence.epoch else { return (known, nil, nil) }
      return (known, nil, newest)
    }
    return (known, checkpoint ?? newest.map { Checkpoint(epoch: $0.epoch, message: $0.message) })
  }

  /// A connection to Redis was lost: each open room keeps the newest message delivered so
  /// far as its checkpoint (an older one not yet checked stays).
  private func checkpointRooms() {
    let pending = state.withLock { state -> [(String, String, ChatMessage)] in
      state.rooms.compactMap { name, room in
        guard let newest = room.newest, newest.epoch == room.sequence.epoch,
          room.checkpoint?.epoch != room.sequence.epoch
        else { return nil }
        return (name, newest.epoch, newest.message)
      }
    }
    let made = pending.map { ($0.0, Checkpoint(epoch: $0.1, message: $0.2)) }
    state.withLock { state in
      for (room, checkpoint) in made where state.rooms[room]?.checkpoint?.epoch != checkpoint.epoch {
        state.rooms[room]?.checkpoint = checkpoint
      }
    }
  }

  /// A script that carried `checkpoint` answered: the room is checked.
  private func checked(_ room: String, _ checkpoint: Checkpoint?) {
    guard let checkpoint else { return }
    state.withLock { state in
      if state.rooms[room]?.checkpoint == checkpoint { state.rooms[room]!.checkpoint = nil }
    }
  }

  /// A script found that `room` lost writes this node saw in `known.epoch` (Redis failed
  /// over to a replica that had not received the newest writes) and moved it to `epoch`:
  /// one line and a count. `why` is the script's finding — `behind` (Redis's last id below
  /// the highest seen here), `differs` or `missing` (the stream's entry at the newest id
  /// delivered here, checked at a re-sync). The delivery path then meets the new epoch like
  /// any other.
  private func lostWrites(
    _ room: String, known: (epoch: String, id: UInt64), last: Int64, epoch: String, why: String = "behind"
  ) {
    state.withLock { $0.lostWrites += 1 }
    configuration.logger.warning(
      "Redis lost acknowledged writes of a room (a failover to a replica that lacked them); the room starts a new epoch",
      metadata: [
        "room": room, "epoch": known.epoch, "seen": "\(known.id)", "redisLast": "\(last)", "newEpoch": epoch,
        "found": why,
      ])
  }

  private func read(
    _ room: String, keys: RedisRoomKeys, after id: UInt64 = 0, count: Int, newest: Bool = false,
    known: (epoch: String, id: UInt64) = ("", 0), check: Checkpoint? = nil,
    _ completion: @escaping (Result<ReadAnswer, BrokerError>) -> Void
  ) {
    guard let client else { return completion(.failure(.closed)) }
    let arguments = [
      InMemoryHistoryStore.newEpoch(), newest ? "newest" : "after", String(id), String(count), known.epoch,
      String(known.id), String(check?.id ?? 0), check?.digest ?? "",
    ]
    client.eval(
      RedisBrokerScripts.read, keys: [Array(keys.meta.utf8), Array(keys.log.utf8)],
      arguments: arguments.map { Array($0.utf8) }
    ) { [self] result in
      let answer = result.mapError { BrokerError.unavailable("cannot read room \(room): \($0)") }
        .flatMap { reply in Self.decodeRead(reply, room: room) }
      if case .success(let read) = answer {
        checked(room, check)
        if let lost = read.lost { lostWrites(room, known: known, last: lost, epoch: read.epoch, why: read.why) }
      }
      completion(answer)
    }
  }

  private func read(
    _ room: String, keys: RedisRoomKeys, newest count: Int,
    _ completion: @escaping (Result<ReadAnswer, BrokerError>) -> Void
  ) {
    read(room, keys: keys, count: count, newest: true, known: seen(room), completion)
  }

  private static func decodeRead(_ reply: RESPValue, room: String) -> Result<ReadAnswer, BrokerError> {
    guard let values = reply.elements, values.count == 5, let epoch = values[0].string,
      let last = values[1].integer, let entries = values[2].elements, let lost = values[3].integer
    else { return .failure(.unavailable("unexpected read reply for room \(room)")) }
    var messages: [ChatMessage] = []
    for entry in entries {
      guard let parts = entry.elements, parts.count == 2, let entryID = parts[0].string,
        let id = UInt64(entryID.prefix(while: { $0 != "-" })), let fields = parts[1].elements,
        fields.count >= 2, let body = fields[1].bytes,
        var message = try? RedisBrokerPayload.decodeBody(body[...], room: room)
      else { continue }
      message.id = id
      messages.append(message)
    }
    return .success(
      ReadAnswer(
        epoch: epoch, last: UInt64(max(0, last)), messages: messages, lost: lost >= 0 ? lost : nil,
        why: values[4].string ?? ""))
  }

  // MARK: Probing the pub/sub connection

  /// This node's probe channel: only its own subscriber listens there.
  private var probeChannel: String { "sb:probe:\(configuration.nodeID)" }

  /// Subscribes to the probe channel, then probes every ``RedisBrokerConfiguration/probeInterval``.
  private func startProbing(_ subscriber: RedisSubscriber) {
    let channel = probeChannel
    Task { [self] in
      do throws(RedisError) {
        try await subscriber.subscribe([channel])
      } catch {
        return configuration.logger.warning("cannot subscribe to the probe channel", metadata: ["error": "\(error)"])
      }
      let timer = loop.scheduleRepeating(every: configuration.probeInterval) { [weak self] in self?.sendProbe() }
      let stale = state.withLock { state -> Scheduled? in
        guard !state.isClosed else { return timer }
        state.probeTimer = timer
        return nil
      }
      stale?.cancel()
    }
  }

  /// Publishes the next probe over the command connection (on the loop), while both
  /// connections look fine: a lost one is being dealt with already.
  private func sendProbe() {
    let token = state.withLock { state -> UInt64? in
      guard !state.isClosed, case .reachable = state.reachability, case .delivering = state.pubsub else {
        return nil
      }
      return state.probe.start()
    }
    guard let token, let client else { return }
    client.send(RESPCommand("PUBLISH", probeChannel, String(token))) { [self] result in
      let verdict = state.withLock { state -> RedisProbe.Verdict in
        guard case .success(let reply) = result, let receivers = reply.integer else {
          state.probe.commandFailed(token: token)
          return .none
        }
        return state.probe.answered(token: token, receivers: Int(receivers))
      }
      act(on: verdict)
    }
  }

  private func act(on verdict: RedisProbe.Verdict) {
    switch verdict {
    case .none: break
    case .await(let token):
      _ = loop.schedule(after: configuration.probeTimeout) { [self] in
        act(on: state.withLock { $0.probe.expired(token: token) })
      }
    case .replace(let reason):
      let replace = state.withLock { state -> Bool in
        guard !state.isClosed, case .delivering = state.pubsub else { return false }
        state.pubsub = .replacing(since: ChatClock.milliseconds())
        return true
      }
      guard replace, let subscriber = connections.withLock({ $0?.subscriber }) as? RedisSubscriber else { return }
      let url = configuration.redis.url
      let server = RedisClusterMap.Node(host: url.host, port: url.port)
      replacing(server, reason: reason)
      subscriber.reconnect(reason: reason)
    }
  }

  /// Probes every master connection of a cluster's shard subscriptions, each on a probe
  /// channel of its own in that master's slots (``RedisClusterProbe``); the subscriber
  /// replaces a silent one itself and reports `ready` when it is back (then every room is
  /// re-synced, as after any reconnect).
  private func startProbing(_ shards: RedisClusterSubscriber) {
    let probing = RedisClusterSubscriber.Probing(
      prefix: probeChannel, interval: configuration.probeInterval, timeout: configuration.probeTimeout
    ) { [weak self] master, reason in
      guard let self else { return }
      state.withLock { state in
        guard !state.isClosed, case .delivering = state.pubsub else { return }
        state.pubsub = .replacing(since: ChatClock.milliseconds())
      }
      replacing(master, reason: reason)
    }
    shards.startProbing(probing)
  }

  /// A silent pub/sub connection to `server` is being replaced: one line and a count.
  private func replacing(_ server: RedisClusterMap.Node, reason: String) {
    checkpointRooms()
    state.withLock { $0.replacements[server.description, default: 0] += 1 }
    configuration.logger.warning(
      "Redis pub/sub connection silent; replacing it, then re-syncing every room from its stream",
      metadata: ["reason": reason, "timeout": "\(configuration.probeTimeout)", "server": server.description])
  }

  // MARK: Connections and presence

  private func commandsChanged(_ next: RedisConnectionState) {
    if case .backingOff = next { checkpointRooms() }
    let change = state.withLock { state -> Reachability? in
      switch (next, state.reachability) {
      case (.backingOff, .reachable):
        state.reachability = .unreachable(since: ChatClock.milliseconds())
        return state.reachability
      case (.ready, .unreachable):
        state.reachability = .reachable
        return .reachable
      default: return nil
      }
    }
    switch change {
    case .unreachable:
      let reason = client?.lastError?.description ?? "connection lost"
      configuration.logger.warning(
        "Redis unreachable; publishes fail until it returns, live delivery on this node goes on",
        metadata: ["url": "\(configuration.redis.url)", "reason": reason])
    case .reachable:
      configuration.logger.notice("Redis reachable again", metadata: ["url": "\(configuration.redis.url)"])
      refreshPresence()
    case nil: break
    }
  }

  /// After a reconnect the subscriber has subscribed again: catch every room up from its stream.
  private func subscriberChanged(_ next: RedisConnectionState) {
    if case .backingOff = next {
      checkpointRooms()
      state.withLock { state in
        state.probe.reset()
        if case .delivering = state.pubsub { state.pubsub = .lost(since: ChatClock.milliseconds()) }
      }
    }
    guard case .ready = next else { return }
    let replaced = state.withLock { state -> Bool in
      state.probe.reset()
      defer { state.pubsub = .delivering }
      if case .replacing = state.pubsub { return true }
      return false
    }
    if replaced { configuration.logger.notice("Redis pub/sub connection replaced; rooms re-synced from their streams") }
    let rooms = state.withLock { state -> [(String, RedisRoomKeys, UInt64)] in
      state.subscriberConnects += 1
      guard state.subscriberConnects > 1 else { return [] }
      var out: [(String, RedisRoomKeys, UInt64)] = []
      for name in Array(state.rooms.keys) where state.rooms[name]!.sequence.resync() {
        out.append((name, state.rooms[name]!.keys, state.rooms[name]!.sequence.delivered))
      }
      return out
    }
    for (room, keys, after) in rooms { fill(room, keys: keys, after: after, resync: true) }
  }

  /// Writes this node's members again with a new expiry and drops expired entries,
  /// announcing them as leaves (``RedisBrokerScripts/expire``).
  private func refreshPresence() {
    loop.execute { [self] in
      let local = state.withLock { state in
        state.refreshes += 1
        return state.isClosed ? [:] : state.local
      }
      guard let client else { return }
      let expire = connections.withLock { $0?.expire } ?? RedisBrokerScripts.expire
      let now = String(ChatClock.milliseconds())
      let score = String(expiry())
      for (room, members) in local {
        let key = RedisRoomKeys(room: room).members
        var command = ["ZADD", key]
        for (member, name) in members { command += [score, entry(member, name: name)] }
        client.send(RESPCommand(command)) { _ in }
        let channel = RedisRoomKeys(room: room).channel
        let arguments = [Array(now.utf8), Array(channel.utf8)]
        client.eval(expire, keys: [Array(key.utf8)], arguments: arguments) { _ in }
      }
    }
  }

  /// How many rooms this node found to have lost acknowledged writes — a Redis failover to
  /// a replica that was behind: same epoch, a last id below one this node had seen — and
  /// moved to a new epoch (docs/SCALING.md, "What no loss means when Redis fails over").
  public var lostWriteEpochs: Int { state.withLock { $0.lostWrites } }

  /// How many pub/sub connections the probe found silent and replaced: the one server's,
  /// and on a cluster each master's shard connection (docs/SCALING.md, "Failure behaviour").
  public var pubsubReplacements: Int { state.withLock { $0.replacements.values.reduce(0, +) } }

  /// The replacements per server (`host:port` of the server or the cluster master).
  var pubsubReplacementsByServer: [String: Int] { state.withLock { $0.replacements } }

  /// Each cluster master's probe phase, by `host:port` (empty on one server).
  var shardProbePhases: [String: RedisClusterProbe.Phase] {
    guard let shards = connections.withLock({ $0?.subscriber }) as? RedisClusterSubscriber else { return [:] }
    return Dictionary(uniqueKeysWithValues: shards.probePhases.map { ($0.key.description, $0.value) })
  }

  /// The broker's counters as Prometheus text, for `/metrics`.
  public func prometheusText() -> String {
    let lost = "switchboard_redis_lost_write_epochs_total"
    let replaced = "switchboard_redis_pubsub_replacements_total"
    return "# TYPE \(lost) counter\n\(lost) \(lostWriteEpochs)\n"
      + "# TYPE \(replaced) counter\n\(replaced) \(pubsubReplacements)\n"
  }

  /// How many presence refreshes this node has sent.
  var presenceRefreshes: Int { state.withLock { $0.refreshes } }

  private func entry(_ member: MemberID, name: String) -> String {
    "\(configuration.nodeID)|\(member.raw)|\(name)"
  }

  private func expiry() -> Int64 {
    let lifetime = configuration.presenceLifetime.components
    return ChatClock.milliseconds() + lifetime.seconds * 1000 + lifetime.attoseconds / 1_000_000_000_000_000
  }
}
