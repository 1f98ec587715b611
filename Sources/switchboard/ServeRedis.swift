import SwitchboardChat
import SwitchboardRedis
import SwitchboardServer
import SwitchboardTLS
import Synchronization

/// `serve --redis URL`: the cluster broker instead of the local one (docs/SCALING.md).
enum ServeRedis {
  /// What the `--redis` flags and `--redis-timeout SECONDS` ask for: the first URL, any
  /// further ones as Redis Cluster seeds, and the timeout.
  struct Target {
    var redis: RedisConfiguration
    var seeds: [RedisURL]
    /// `--redis-timeout`: command and connect timeout, probe interval; `nil` keeps the defaults.
    var timeout: Duration?
    /// The broker's counters for `/metrics`, once the factory made it.
    let metrics = MetricsSlot()
  }

  /// Where the broker factory leaves the broker, for `/metrics`.
  final class MetricsSlot: Sendable {
    private let broker = Mutex<RedisRoomBroker?>(nil)
    func set(_ value: RedisRoomBroker) { broker.withLock { $0 = value } }
    var prometheusText: String { broker.withLock { $0 }?.prometheusText() ?? "" }
  }

  /// The Redis target of the `--redis` flags (`nil` when there is none). One URL is one
  /// server or a cluster (the broker asks `INFO cluster`); several are seeds of one cluster.
  /// - Throws: ``Arguments/UsageError`` for a URL that is not `redis://` or `rediss://`, or a
  ///   timeout outside 0.05–3600 s.
  static func configuration(_ urls: [String], timeout seconds: Double?) throws -> Target? {
    guard let first = urls.first else { return nil }
    var target: Target
    do {
      let redis = try RedisConfiguration(first)
      let seeds = try urls.dropFirst().map { text throws(RedisError) in try RedisURL(text) }
      target = Target(redis: redis, seeds: seeds)
    } catch {
      throw Arguments.UsageError(description: "--redis: \(error.message)")
    }
    // Refused here, before anything starts, rather than by every connection attempt.
    if !TLSSupport.isAvailable, ([target.redis.url] + target.seeds).contains(where: \.tls) {
      throw Arguments.UsageError(description: "--redis: rediss:// \(TLSSupport.unavailableReason())")
    }
    guard let seconds else { return target }
    guard (0.05...3600).contains(seconds) else {
      throw Arguments.UsageError(description: "--redis-timeout must be between 0.05 and 3600 seconds")
    }
    let timeout = Duration.milliseconds(Int64((seconds * 1000).rounded()))
    target.redis.commandTimeout = timeout
    target.redis.connectTimeout = timeout
    target.timeout = timeout
    return target
  }

  /// The broker factory for ``ServerConfiguration/broker``: connects at start (the server
  /// does not start when Redis cannot be reached) and keeps `historyLimit` messages per room.
  static func broker(_ target: Target) -> @Sendable (ServerConfiguration) throws -> any RoomBroker {
    { config in
      var redis = target.redis
      redis.logger = config.logger
      var configuration = RedisBrokerConfiguration(
        redis: redis, historyLimit: config.historyLimit, nodeID: config.api.nodeID.isEmpty ? nil : config.api.nodeID,
        logger: config.logger)
      configuration.cluster.seeds = target.seeds
      if let timeout = target.timeout {
        configuration.publishTimeout = timeout * 2
        configuration.probeInterval = timeout
        configuration.probeTimeout = timeout * 0.6
      }
      let broker = try RedisRoomBroker.connect(configuration: configuration)
      target.metrics.set(broker)
      config.logger.info(
        broker.isCluster ? "rooms shared through Redis Cluster" : "rooms shared through Redis",
        metadata: ["url": "\(redis.url)", "node": broker.configuration.nodeID])
      return broker
    }
  }
}
