import Dispatch
import SwitchboardChat
import SwitchboardIO
import SwitchboardLog
import SwitchboardRESP
import SwitchboardWire
import Synchronization

/// Watching the connections: the pub/sub probes, the command and subscriber connection
/// states, the presence refresh and the broker's metrics (see ``RedisRoomBroker``).
extension RedisRoomBroker {
  // MARK: Probing the pub/sub connection

  /// This node's probe channel: only its own subscriber listens there.
  var probeChannel: String { "sb:probe:\(configuration.nodeID)" }

  /// Subscribes to the probe channel, then probes every ``RedisBrokerConfiguration/probeInterval``.
  func startProbing(_ subscriber: RedisSubscriber) {
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
  func sendProbe() {
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

  func act(on verdict: RedisProbe.Verdict) {
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
  func startProbing(_ shards: RedisClusterSubscriber) {
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
  func replacing(_ server: RedisClusterMap.Node, reason: String) {
    checkpointRooms()
    state.withLock { $0.replacements[server.description, default: 0] += 1 }
    configuration.logger.warning(
      "Redis pub/sub connection silent; replacing it, then re-syncing every room from its stream",
      metadata: ["reason": reason, "timeout": "\(configuration.probeTimeout)", "server": server.description])
  }

  // MARK: Connections and presence

  func commandsChanged(_ next: RedisConnectionState) {
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
  func subscriberChanged(_ next: RedisConnectionState) {
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
      for index in state.rooms.indices where state.rooms.values[index].sequence.resync() {
        let (name, room) = state.rooms[index]
        out.append((name, room.keys, room.sequence.delivered))
      }
      return out
    }
    for (room, keys, after) in rooms { fill(room, keys: keys, after: after, resync: true) }
  }

  /// Writes this node's members again with a new expiry and drops expired entries,
  /// announcing them as leaves (``RedisBrokerScripts/expire``).
  func refreshPresence() {
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
        for entry in members.values { command += [score, entry.encoded] }
        client.send(RESPCommand(command)) { _ in }
        let channel = RedisRoomKeys(room: room).channel
        let arguments = [Array(now.utf8), Array(channel.utf8)]
        client.eval(expire, keys: [Array(key.utf8)], arguments: arguments) { [self] result in
          // The entries this node removed (the script is atomic: no other node removes them).
          guard case .success(.array(let items)) = result, items.count > 1, case .integer(let count) = items[0],
            let sink = state.withLock({ $0.sink })
          else { return }
          let names = items.dropFirst().compactMap { item -> String? in
            if case .bulkString(let name) = item { return String(decoding: name, as: UTF8.self) }
            return nil
          }
          // Each leave with the count right after it, as if removed one at a time.
          for (index, name) in names.enumerated() {
            let members = Int(count) + names.count - 1 - index
            sink.expiredPresence(PresenceEvent(kind: .leave, author: name, room: room, members: members, color: ""))
          }
        }
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

  /// How many pub/sub messages named no room open here, and were dropped.
  var strayMessages: Int { state.withLock { $0.strays } }

  /// How many presence refreshes this node has sent.
  var presenceRefreshes: Int { state.withLock { $0.refreshes } }

  /// This node's presence entry of `member` called `name`, with its transport and join time
  /// when the hub's id carried them (``RedisPresenceEntry``, ``SwitchboardChat/MemberID/connection``).
  func entry(_ member: MemberID, connection: (transport: String, since: Int64)?, name: String) -> RedisPresenceEntry {
    RedisPresenceEntry(
      node: configuration.nodeID, member: String(member.raw), transport: connection?.transport,
      since: connection?.since, name: name)
  }

  func expiry() -> Int64 {
    let lifetime = configuration.presenceLifetime.components
    return ChatClock.milliseconds() + lifetime.seconds * 1000 + lifetime.attoseconds / 1_000_000_000_000_000
  }
}
