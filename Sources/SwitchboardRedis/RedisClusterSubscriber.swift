import SwitchboardIO
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
public final class RedisClusterSubscriber: Sendable {
  private struct State {
    var subscribers: [RedisClusterMap.Node: RedisSubscriber] = [:]
    /// Channel → the master it is subscribed on.
    var channels: [String: RedisClusterMap.Node] = [:]
    /// Nodes whose subscriber has been ready once (a later `ready` is a reconnect).
    var readyOnce: Set<RedisClusterMap.Node> = []
    var isClosed = false
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
    let subscribers = locked.withLock { state -> [RedisSubscriber] in
      state.isClosed = true
      defer { state.subscribers = [:] }
      return Array(state.subscribers.values)
    }
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
      stateHandler: { [weak self] next in self?.nodeChanged(node, next) }, handler: handler)
    state.subscribers[node] = subscriber
    return subscriber
  }

  /// A node's subscriber reconnected (and subscribed again): say `ready` once more.
  private func nodeChanged(_ node: RedisClusterMap.Node, _ next: RedisConnectionState) {
    guard case .ready = next else { return }
    let again = locked.withLock { !$0.readyOnce.insert(node).inserted }
    if again { observer.update(next, error: nil) }
  }

  /// Moves the channels whose slot changed master.
  private func mapChanged(_ map: RedisClusterMap) {
    let moves = locked.withLock { state -> [(from: RedisSubscriber?, to: RedisSubscriber, names: [String])] in
      guard !state.isClosed else { return [] }
      var from: [RedisClusterMap.Node: [String]] = [:]
      for (channel, node) in state.channels {
        guard let owner = map.node(forKey: Array(channel.utf8)), owner != node else { continue }
        from[node, default: []].append(channel)
        state.channels[channel] = owner
      }
      var moves: [(from: RedisSubscriber?, to: RedisSubscriber, names: [String])] = []
      for (old, names) in from {
        for name in names {
          // One entry per channel keeps the pairing of old and new master simple.
          let owner = state.channels[name]!
          moves.append((state.subscribers[old], subscriber(for: owner, in: &state), [name]))
        }
      }
      return moves
    }
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
