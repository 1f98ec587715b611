import Dispatch
import SwitchboardChat
import SwitchboardCrypto
import SwitchboardIO
import SwitchboardLog
import SwitchboardRESP
import SwitchboardWire
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
  struct Waiter {
    var id: UInt64
    var epoch: String
    var executor: (any ShardExecutor)?
    var completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)?
  }
  struct Opener {
    var limit: Int
    var executor: any ShardExecutor
    var completion: @Sendable (Result<RoomSnapshot, BrokerError>) -> Void
  }
  /// A message a script compares with the stream's entry at its id
  /// (``RedisBrokerScripts/read``): the epoch, the id and the SHA-1 of its body.
  struct Checkpoint: Equatable {
    var epoch: String
    var id: UInt64
    var digest: String

    init(epoch: String, message: ChatMessage) {
      self.epoch = epoch
      id = message.id
      digest = SHA1.hexDigest(RedisBrokerPayload.body(message))
    }
  }
  struct Room {
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
  enum Reachability {
    case reachable
    /// Lost at `since` (ms since 1970).
    case unreachable(since: Int64)
  }
  /// Whether the pub/sub connection delivers (``RedisProbe``).
  enum PubSubHealth {
    case delivering
    /// The connection was lost (Redis away: the command connection's line says so).
    case lost(since: Int64)
    /// The probe found it silent; it is being replaced (logged once, with its return).
    case replacing(since: Int64)
  }
  struct State {
    var sink: (any RoomBrokerSink)?
    var isClosed = false
    /// The rooms open here, by name: everything kept of a room is in its value, and what
    /// arrives on a channel finds its room by the name the channel carries
    /// (``RedisRoomKeys/room(channel:)``), so there is no second table to fall out of step.
    /// Reach a room through ``withRoom(_:_:)``, which answers `nil` for a room not open here.
    var rooms: [String: Room] = [:]
    /// Refs of this node's publishes whose payload may still arrive, → their origin.
    var inFlight: [String: MemberID?] = [:]
    var nextRef: UInt64 = 0
    /// This node's announced members, per room: member → its presence entry.
    var local: [String: [MemberID: RedisPresenceEntry]] = [:]
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
    /// Pub/sub messages that named no room open here (a room gone idle while its
    /// unsubscription was under way, or a channel that is no room's): dropped.
    var strays = 0

    /// Runs `body` on the open room `name` and returns its answer, or `nil` — with nothing
    /// changed — when the room is not open here (never opened, gone idle, or the broker
    /// closed). One lookup; the room is changed in place.
    mutating func withRoom<T>(_ name: String, _ body: (inout Room) throws -> T) rethrows -> T? {
      try rooms.withValue(forKey: name, body)
    }
  }

  /// How it works.
  public let configuration: RedisBrokerConfiguration
  /// The loop the broker's connections and state live on.
  public let loop: EventLoop
  let state = Mutex(State())
  let connections = Mutex<RedisBrokerConnections?>(nil)
  /// How many entries a gap fill reads at a time.
  static let fillCount = 1000

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
    broker.subscribeControl(made.subscriber)
    let every = configuration.presenceRefresh
    let timer = loop.scheduleRepeating(every: every) {
      broker.refreshPresence()
      broker.refreshRooms()
    }
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

  var client: (any RedisBrokerCommands)? { connections.withLock { $0?.client } }

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
        let known = state.withRoom(room) { existing -> Next in
          existing.openers.append(opener)
          return existing.sequence.phase == .opening ? .wait : .read(existing.keys)
        }
        if let known { return known }
        let keys = RedisRoomKeys(room: room)
        var fresh = Room(keys: keys)
        fresh.openers.append(opener)
        state.rooms[room] = fresh
        return .subscribe(keys)
      }
      switch next {
      case .closed: executor.execute { completion(.failure(.closed)) }
      case .wait: break
      case .read(let keys): readForOpen(room, keys: keys)
      case .subscribe(let keys):
        register([room])
        subscribe(room, keys: keys)
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
      read(
        room, keys: RedisRoomKeys(room: room), after: id, count: limit, budget: configuration.historyReadBytes,
        known: seen(room)
      ) { result in
        let answer = result.map(\.messages)
        executor.execute { completion(answer) }
      }
    }
  }

  public func presenceChanged(_ event: PresenceEvent, member: MemberID) {
    // Read off the hub's record here; the loop keeps only the bare id.
    let connection = member.connection
    let member = MemberID(raw: member.raw)
    loop.execute { [self] in
      let keys = RedisRoomKeys(room: event.room)
      let (stale, fresh) = state.withLock { state -> (String?, String?) in
        var members = state.local[event.room, default: [:]]
        let previous = members[member]
        switch event.kind {
        case .join, .rename:
          // A rename keeps the transport and time the join wrote.
          var next = previous ?? entry(member, connection: connection, name: event.author)
          next.name = event.author
          members[member] = next
        case .leave: members[member] = nil
        }
        state.local[event.room] = members.isEmpty ? nil : members
        let old = previous?.encoded
        let new = members[member]?.encoded
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
  func showOwn(_ event: PresenceEvent, member: MemberID) {
    state.withLock { $0.sink }?.ownPresence(event, member: member)
  }

  /// Unsubscribes the room's channel and forgets the room (its presence refresh too); a
  /// later ``openRoom(_:recent:on:completion:)`` starts afresh, reading the room's state.
  public func roomIdle(_ room: String) {
    loop.execute { [self] in
      let (keys, waiters) = state.withLock { state -> (RedisRoomKeys?, [Waiter]) in
        guard !state.isClosed, let gone = state.rooms.removeValue(forKey: room) else { return (nil, []) }
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
  func resubscribeIfReopened(_ room: String, keys: RedisRoomKeys) {
    guard state.withLock({ !$0.isClosed && $0.rooms[room] != nil }),
      let subscriber = connections.withLock({ $0?.subscriber })
    else { return }
    Task { [self] in
      try? await subscriber.subscribe([keys.channel])
      loop.execute { [self] in
        let after = state.withLock { state -> UInt64? in
          state.withRoom(room) { open in open.sequence.resync() ? open.sequence.delivered : nil } ?? nil
        }
        if let after { fill(room, keys: keys, after: after, resync: true) }
      }
    }
  }

  public func remoteMembers(
    room: String, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[String], BrokerError>) -> Void
  ) {
    remoteMemberNodes(room: room, on: executor) { result in completion(result.map { $0.map(\.name) }) }
  }

  /// The live presence entries of other nodes in `room`: each member's node, name,
  /// transport and since when (``RedisPresenceEntry``; `nil` from a node of an earlier version).
  public func remoteMemberNodes(
    room: String, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[RemoteMember], BrokerError>) -> Void
  ) {
    loop.execute { [self] in
      guard let client else { return executor.execute { completion(.failure(.closed)) } }
      let now = String(ChatClock.milliseconds())
      let own = configuration.nodeID + "|"
      client.send(RESPCommand("ZRANGEBYSCORE", RedisRoomKeys(room: room).members, now, "+inf")) { result in
        let answer = result.map { reply -> [RemoteMember] in
          (reply.elements ?? []).compactMap { element -> RemoteMember? in
            guard let text = element.string, !text.hasPrefix(own), let entry = RedisPresenceEntry.decode(text.utf8)
            else { return nil }
            return (entry.node, entry.name, entry.transport, entry.since)
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

  func close(goodbye: Bool) {
    let (rooms, timer) = state.withLock { state -> ([String: [MemberID: RedisPresenceEntry]], Scheduled?) in
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
    loop.execute {
      guard let client = pair?.client, !rooms.isEmpty else {
        done.signal()
        return
      }
      let remaining = Mutex(rooms.count)
      for (room, members) in rooms {
        let names = members.values.map(\.encoded)
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
}
