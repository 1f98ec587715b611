import SwitchboardChat
import SwitchboardIO
import SwitchboardRESP
import Synchronization

/// Sharded pub/sub on a Redis Cluster (`SSUBSCRIBE`, Redis 7): one ``RedisSubscriber`` per
/// master, each shard channel subscribed on the master that serves its slot, every message
/// delivered to one handler on the cluster's loop.
///
/// ```swift
/// let subscriber = RedisClusterSubscriber(cluster: cluster) { message in … }
/// try await subscriber.ssubscribe(["sb:{lobby}:ch"])
/// ```
///
/// A shard channel lives in its slot: when the slot moves to another master the old one
/// drops the subscription (it sends `sunsubscribe`), and messages published meanwhile are
/// not delivered. The subscriber follows the cluster's slot map (read every
/// ``RedisClusterClient`` refresh and soon after any `MOVED`): a channel whose slot changed
/// master is unsubscribed on the old one and subscribed on the new one, and the
/// `stateHandler` then hears `ready` again — the sign, as after a reconnect, to catch up
/// from a durable source. A node's subscriber that reconnects does the same.
///
/// When probing (the broker starts it on a cluster) each master's connection is also checked
/// for silence: it subscribes to a probe channel in that master's slots, and a token is
/// `SPUBLISH`ed there every probe interval (``RedisClusterProbe``); a connection that stays
/// open but stops delivering is dropped and made again, which the `stateHandler` hears as
/// `ready` once it is back.
public final class RedisClusterSubscriber: Sendable {
  /// How the shard connections are checked (``startProbing(_:)``).
  struct Probing: Sendable {
    /// The probe channels' common start (`sb:probe:<node>`).
    var prefix: String
    /// How often each master's connection gets a probe.
    var interval: Duration
    /// How long after Redis answered the `SPUBLISH` the token may take to arrive.
    var timeout: Duration
    /// Told, on the loop, that a master's connection was found silent (and why), just
    /// before it is replaced.
    var silent: @Sendable (RedisClusterMap.Node, String) -> Void
  }

  private struct State {
    var subscribers: [RedisClusterMap.Node: RedisSubscriber] = [:]
    /// Channel → the master it is subscribed on.
    var channels: [String: RedisClusterMap.Node] = [:]
    /// Nodes whose subscriber has been ready once (a later `ready` is a reconnect).
    var readyOnce: Set<RedisClusterMap.Node> = []
    var isClosed = false
    /// The shards' probes, once probing started.
    var probe: RedisClusterProbe?
    var probing: Probing?
    var probeTimer: Scheduled?
  }

  /// The cluster whose map routes the subscriptions.
  public let cluster: RedisClusterClient
  private let locked = Mutex(State())
  private let observer: RedisObserver
  private let handler: @Sendable (RedisPubSubMessage) -> Void

  /// A subscriber following `cluster`'s map. `handler` gets every message and
  /// `stateHandler` the changes (`ready` once the map is known, again after each
  /// re-subscription), both on the cluster's loop.
  public init(
    cluster: RedisClusterClient, stateHandler: (@Sendable (RedisConnectionState) -> Void)? = nil,
    handler: @escaping @Sendable (RedisPubSubMessage) -> Void
  ) {
    self.cluster = cluster
    self.handler = handler
    observer = RedisObserver(handler: stateHandler)
    let observer = observer
    let loop = cluster.loop
    Task { [weak self] in
      let map = await cluster.watch.firstMap()
      if let map { self?.mapChanged(map) }
      loop.execute { observer.update(map == nil ? .closed : .ready(protocolVersion: 3), error: nil) }
    }
    cluster.watch.onChange { [weak self] map in self?.mapChanged(map) }
  }

  deinit { close() }

  /// The subscriber's state now.
  public var state: RedisConnectionState { observer.state }

  /// Subscribes to shard `channels`, each on its slot's master; returns once every master
  /// confirmed.
  /// - Throws: ``RedisError`` (timeout, closed; `CLUSTERDOWN` when no master serves a slot).
  public func ssubscribe(_ channels: [String], timeout: Duration? = nil) async throws(RedisError) {
    guard let map = await cluster.watch.firstMap() else { throw .closed() }
    var groups: [RedisClusterMap.Node: [String]] = [:]
    for channel in channels {
      guard let node = map.node(forKey: Array(channel.utf8)) else {
        throw .server("CLUSTERDOWN no master serves the slot of \(channel)")
      }
      groups[node, default: []].append(channel)
    }
    for (node, names) in groups {
      let made = locked.withLock { state -> RedisSubscriber? in
        guard !state.isClosed else { return nil }
        for name in names { state.channels[name] = node }
        return subscriber(for: node, in: &state)
      }
      guard let made else { throw .closed() }
      followWithProbes(map)
      try await made.ssubscribe(names, timeout: timeout)
    }
  }

  /// Unsubscribes from shard `channels`.
  public func sunsubscribe(_ channels: [String], timeout: Duration? = nil) async throws(RedisError) {
    let groups = locked.withLock { state -> [(RedisSubscriber, [String])] in
      var groups: [RedisClusterMap.Node: [String]] = [:]
      for channel in channels {
        if let node = state.channels.removeValue(forKey: channel) {
          groups[node, default: []].append(channel)
        }
      }
      return groups.compactMap { node, names in state.subscribers[node].map { ($0, names) } }
    }
    for (subscriber, names) in groups { try await subscriber.sunsubscribe(names, timeout: timeout) }
  }

  /// Closes every node's subscriber.
  public func close() {
    let (subscribers, timer) = locked.withLock { state -> ([RedisSubscriber], Scheduled?) in
      state.isClosed = true
      defer {
        state.subscribers = [:]
        state.probeTimer = nil
      }
      return (Array(state.subscribers.values), state.probeTimer)
    }
    timer?.cancel()
    for subscriber in subscribers { subscriber.close() }
  }

  /// The subscriber of `node`, made on first use.
  private func subscriber(for node: RedisClusterMap.Node, in state: inout State) -> RedisSubscriber {
    if let known = state.subscribers[node] { return known }
    var configuration = cluster.seeds[0]
    configuration.url.host = node.host
    configuration.url.port = node.port
    if let seed = cluster.seeds.first(where: { $0.url.host == node.host && $0.url.port == node.port }) {
      configuration = seed
    }
    let subscriber = RedisSubscriber(
      configuration: configuration, on: cluster.loop,
      stateHandler: { [weak self] next in self?.nodeChanged(node, next) },
      handler: { [weak self] message in self?.received(message, on: node) })
    state.subscribers[node] = subscriber
    return subscriber
  }

  /// A node's subscriber reconnected (and subscribed again): say `ready` once more.
  private func nodeChanged(_ node: RedisClusterMap.Node, _ next: RedisConnectionState) {
    locked.withLock { _ = $0.probe?.connection(node, next) }
    guard case .ready = next else { return }
    let again = locked.withLock { !$0.readyOnce.insert(node).inserted }
    if again { observer.update(next, error: nil) }
  }

  /// A message on `node`'s connection: a probe's token, or one for the handler.
  private func received(_ message: RedisPubSubMessage, on node: RedisClusterMap.Node) {
    let isProbe = locked.withLock { state -> Bool in
      guard let prefix = state.probe?.prefix, message.channel.hasPrefix(prefix + ":") else { return false }
      if let token = UInt64(String(decoding: message.payload, as: UTF8.self)) {
        state.probe?.arrived(node, channel: message.channel, token: token)
      }
      return true
    }
    if !isProbe { handler(message) }
  }

  /// Moves the channels whose slot changed master.
  private func mapChanged(_ map: RedisClusterMap) {
    let moves = locked.withLock { state -> [(from: RedisSubscriber?, to: RedisSubscriber, names: [String])] in
      guard !state.isClosed else { return [] }
      var from: [RedisClusterMap.Node: [(name: String, owner: RedisClusterMap.Node)]] = [:]
      for (channel, node) in state.channels {
        guard let owner = map.node(forKey: Array(channel.utf8)), owner != node else { continue }
        from[node, default: []].append((channel, owner))
        state.channels[channel] = owner
      }
      var moves: [(from: RedisSubscriber?, to: RedisSubscriber, names: [String])] = []
      for (old, names) in from {
        for (name, owner) in names {
          // One entry per channel keeps the pairing of old and new master simple.
          moves.append((state.subscribers[old], subscriber(for: owner, in: &state), [name]))
        }
      }
      return moves
    }
    followWithProbes(map)
    guard !moves.isEmpty else { return }
    let observer = observer
    let loop = cluster.loop
    Task {
      var failed: RedisError?
      for move in moves {
        // The old master may have dropped it already (it sends sunsubscribe): forget it there.
        try? await move.from?.sunsubscribe(move.names)
        do throws(RedisError) {
          try await move.to.ssubscribe(move.names)
        } catch {
          failed = error
        }
      }
      let next: RedisConnectionState =
        failed == nil ? .ready(protocolVersion: 3) : .backingOff(attempt: 1, delay: .zero)
      let error = failed
      loop.execute { observer.update(next, error: error) }
    }
  }
}

// MARK: Probing the shard connections

extension RedisClusterSubscriber {
  /// Starts probing every master's connection, those made later too (see ``Probing``).
  /// Call once, after the first map is known or soon to be.
  func startProbing(_ probing: Probing) {
    let timer = cluster.loop.scheduleRepeating(every: probing.interval) { [weak self] in self?.sendProbes() }
    let stale = locked.withLock { state -> Scheduled? in
      guard !state.isClosed, state.probe == nil else { return timer }
      state.probe = RedisClusterProbe(prefix: probing.prefix)
      state.probing = probing
      state.probeTimer = timer
      return nil
    }
    stale?.cancel()
    Task { [self] in
      guard let map = await cluster.watch.firstMap() else { return }
      followWithProbes(map)
    }
  }

  /// Gives every master connection a probe channel in its slots (`map`), subscribing and
  /// unsubscribing as ``RedisClusterProbe/follow(_:nodes:)`` says.
  fileprivate func followWithProbes(_ map: RedisClusterMap) {
    let changes = locked.withLock { state -> [(RedisSubscriber, RedisClusterProbe.Change)] in
      guard !state.isClosed, let follow = state.probe?.follow(map, nodes: state.subscribers.keys) else { return [] }
      return follow.compactMap { change in
        state.subscribers[change.node].map { ($0, change) }
      }
    }
    guard !changes.isEmpty else { return }
    let loop = cluster.loop
    Task { [self] in
      for (subscriber, change) in changes {
        if let old = change.unsubscribe { try? await subscriber.sunsubscribe([old]) }
        guard let channel = change.subscribe else { continue }
        // A timeout here resets that connection, which then subscribes again before `ready`.
        guard (try? await subscriber.ssubscribe([channel])) != nil else { continue }
        loop.execute { [self] in locked.withLock { $0.probe?.subscribed(change.node, channel: channel) } }
      }
    }
  }

  /// Each probed master's phase now.
  var probePhases: [RedisClusterMap.Node: RedisClusterProbe.Phase] {
    locked.withLock { $0.probe?.shards.mapValues(\.phase) ?? [:] }
  }

  /// Publishes the next probe of every shard that is probing (on the loop).
  private func sendProbes() {
    let due = locked.withLock { state -> [(node: RedisClusterMap.Node, channel: String, token: UInt64)] in
      guard !state.isClosed else { return [] }
      return state.probe?.start() ?? []
    }
    for probe in due {
      cluster.send(RESPCommand("SPUBLISH", probe.channel, String(probe.token))) { [weak self] result in
        self?.probeAnswered(probe.node, channel: probe.channel, token: probe.token, result)
      }
    }
  }

  private func probeAnswered(
    _ node: RedisClusterMap.Node, channel: String, token: UInt64, _ result: Result<RESPValue, RedisError>
  ) {
    // An answer from another master (the slot moved, the map not re-read yet) says nothing
    // about this node's connection.
    let owner = cluster.watch.map?.node(forKey: Array(channel.utf8))
    let verdict = locked.withLock { state -> RedisProbe.Verdict in
      guard case .success(let reply) = result, let receivers = reply.integer, owner == node else {
        state.probe?.commandFailed(node, token: token)
        return .none
      }
      let now = ChatClock.milliseconds()
      return state.probe?.answered(node, channel: channel, token: token, receivers: Int(receivers), now: now)
        ?? .none
    }
    act(on: verdict, node)
  }

  private func act(on verdict: RedisProbe.Verdict, _ node: RedisClusterMap.Node) {
    switch verdict {
    case .none: break
    case .await(let token):
      let timeout = locked.withLock { $0.probing?.timeout } ?? .seconds(3)
      _ = cluster.loop.schedule(after: timeout) { [weak self] in
        guard let self else { return }
        let verdict = locked.withLock { state in
          state.probe?.expired(node, token: token, now: ChatClock.milliseconds()) ?? .none
        }
        act(on: verdict, node)
      }
    case .replace(let reason):
      let (subscriber, probing) = locked.withLock { state in
        state.isClosed ? (nil, nil) : (state.subscribers[node], state.probing)
      }
      guard let subscriber, let probing else { return }
      probing.silent(node, reason)
      subscriber.reconnect(reason: reason)
    }
  }
}
