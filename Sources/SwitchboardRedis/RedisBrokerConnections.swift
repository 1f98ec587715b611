import Dispatch
import SwitchboardIO
import SwitchboardRESP
import Synchronization

/// What a ``RedisRoomBroker`` sends commands on: one ``RedisClient``, or a
/// ``RedisClusterClient`` routing by slot. The broker's calls, on its loop.
protocol RedisBrokerCommands: AnyObject, Sendable {
  func send(
    _ command: RESPCommand, timeout: Duration?,
    _ completion: @escaping (Result<RESPValue, RedisError>) -> Void)
  func eval(
    _ script: RedisScript, keys: [[UInt8]], arguments: [[UInt8]], timeout: Duration?,
    _ completion: @escaping (Result<RESPValue, RedisError>) -> Void)
  var lastError: RedisError? { get }
  func close()
}

extension RedisBrokerCommands {
  func send(_ command: RESPCommand, _ completion: @escaping (Result<RESPValue, RedisError>) -> Void) {
    send(command, timeout: nil, completion)
  }
  func eval(
    _ script: RedisScript, keys: [[UInt8]], arguments: [[UInt8]],
    _ completion: @escaping (Result<RESPValue, RedisError>) -> Void
  ) {
    eval(script, keys: keys, arguments: arguments, timeout: nil, completion)
  }
}

/// Where a ``RedisRoomBroker`` subscribes to its rooms' channels: classic channels on one
/// ``RedisSubscriber``, or shard channels on a ``RedisClusterSubscriber``.
protocol RedisBrokerChannels: AnyObject, Sendable {
  func subscribe(_ channels: [String], timeout: Duration?) async throws(RedisError)
  func unsubscribe(_ channels: [String], timeout: Duration?) async throws(RedisError)
  func close()
}

extension RedisBrokerChannels {
  func subscribe(_ channels: [String]) async throws(RedisError) {
    try await subscribe(channels, timeout: nil)
  }
  func unsubscribe(_ channels: [String]) async throws(RedisError) {
    try await unsubscribe(channels, timeout: nil)
  }
}

extension RedisClient: RedisBrokerCommands {}
extension RedisSubscriber: RedisBrokerChannels {}
extension RedisClusterClient: RedisBrokerCommands {}

extension RedisClusterSubscriber: RedisBrokerChannels {
  /// The broker's rooms are shard channels on a cluster.
  func subscribe(_ channels: [String], timeout: Duration?) async throws(RedisError) {
    try await ssubscribe(channels, timeout: timeout)
  }
  func unsubscribe(_ channels: [String], timeout: Duration?) async throws(RedisError) {
    try await sunsubscribe(channels, timeout: timeout)
  }
}

/// A broker's two connections and the scripts that announce on the rooms' channels to fit
/// them: `PUBLISH` on one server, `SPUBLISH` (sharded pub/sub, the channel in the room's
/// slot) on a cluster.
struct RedisBrokerConnections: Sendable {
  let client: any RedisBrokerCommands
  let subscriber: any RedisBrokerChannels
  let isCluster: Bool
  /// The publish script (``RedisBrokerScripts/publish`` or its sharded form).
  var publish: RedisScript { isCluster ? RedisBrokerScripts.shardedPublish : RedisBrokerScripts.publish }
  /// The presence script (``RedisBrokerScripts/presence`` or its sharded form).
  var presence: RedisScript { isCluster ? RedisBrokerScripts.shardedPresence : RedisBrokerScripts.presence }
  /// The expire script (``RedisBrokerScripts/expire`` or its sharded form).
  var expire: RedisScript { isCluster ? RedisBrokerScripts.shardedExpire : RedisBrokerScripts.expire }

  /// Makes the connections for `configuration` on `loop` (they start connecting at once).
  /// Decides first whether Redis is a cluster (``RedisClusterSettings``), which blocks the
  /// calling thread for a round trip when it has to ask.
  /// - Throws: ``RedisError`` when asking fails (Redis unreachable, login refused).
  static func make(
    _ configuration: RedisBrokerConfiguration, on loop: EventLoop,
    commandsChanged: @escaping @Sendable (RedisConnectionState) -> Void,
    subscriberChanged: @escaping @Sendable (RedisConnectionState) -> Void,
    handler: @escaping @Sendable (RedisPubSubMessage) -> Void
  ) throws(RedisError) -> RedisBrokerConnections {
    guard try isCluster(configuration, on: loop) else {
      return RedisBrokerConnections(
        client: RedisClient(configuration: configuration.redis, on: loop, stateHandler: commandsChanged),
        subscriber: RedisSubscriber(
          configuration: configuration.redis, on: loop, stateHandler: subscriberChanged, handler: handler),
        isCluster: false)
    }
    var seeds = [configuration.redis]
    for url in configuration.cluster.seeds where url != configuration.redis.url {
      var seed = configuration.redis
      seed.url = url
      seeds.append(seed)
    }
    let cluster = RedisClusterClient(
      seeds: seeds, on: loop, refreshInterval: configuration.cluster.refreshInterval,
      stateHandler: commandsChanged)
    let subscriber = RedisClusterSubscriber(
      cluster: cluster, stateHandler: subscriberChanged, handler: handler)
    return RedisBrokerConnections(
      client: cluster, subscriber: subscriber, isCluster: true)
  }

  /// Whether the broker talks to a cluster: as configured, or by `INFO cluster`.
  private static func isCluster(_ configuration: RedisBrokerConfiguration, on loop: EventLoop)
    throws(RedisError)
    -> Bool
  {
    switch configuration.cluster.topology {
    case .standalone: return false
    case .cluster: return true
    case .detect where !configuration.cluster.seeds.isEmpty: return true
    case .detect: break
    }
    let redis = configuration.redis
    let answer = Mutex<Result<Bool, RedisError>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
      let result: Result<Bool, RedisError>
      do throws(RedisError) {
        let client = try await RedisClient.connect(configuration: redis, on: loop)
        defer { client.close() }
        let info = try await client.send(RESPCommand("INFO", "cluster"))
        result = .success(info.string?.contains("cluster_enabled:1") ?? false)
      } catch {
        result = .failure(error)
      }
      answer.withLock { $0 = result }
      done.signal()
    }
    let wait = redis.connectTimeout + redis.commandTimeout + .seconds(1)
    let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
    _ = done.wait(timeout: .now() + seconds)
    switch answer.withLock({ $0 }) {
    case .success(let isCluster): return isCluster
    case .failure(let error): throw .connectFailed("cannot reach Redis at \(redis.url): \(error)")
    case nil: throw .connectFailed("cannot reach Redis at \(redis.url): no answer within \(wait)")
    }
  }
}
