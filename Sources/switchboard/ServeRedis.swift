import SwitchboardChat
import SwitchboardRedis
import SwitchboardServer

/// `serve --redis URL`: the cluster broker instead of the local one (docs/SCALING.md).
enum ServeRedis {
  /// Where the rooms live: the first `--redis` URL, and any further ones as Redis Cluster seeds.
  struct Target {
    var redis: RedisConfiguration
    var seeds: [RedisURL]
  }

  /// The Redis target of the `--redis` flags (`nil` when there is none). One URL is one
  /// server or a cluster (the broker asks `INFO cluster`); several are seeds of one cluster.
  /// - Throws: ``Arguments/UsageError`` for a URL that is not `redis://` or `rediss://`.
  static func configuration(_ urls: [String]) throws -> Target? {
    guard let first = urls.first else { return nil }
    do {
      let redis = try RedisConfiguration(first)
      let seeds = try urls.dropFirst().map { text throws(RedisError) in try RedisURL(text) }
      return Target(redis: redis, seeds: seeds)
    } catch {
      throw Arguments.UsageError(description: "--redis: \(error.message)")
    }
  }

  /// The broker factory for ``ServerConfiguration/broker``: connects at start (the server
  /// does not start when Redis cannot be reached) and keeps `historyLimit` messages per room.
  static func broker(_ target: Target) -> @Sendable (ServerConfiguration) throws -> any RoomBroker {
    { config in
      var redis = target.redis
      redis.logger = config.logger
      var configuration = RedisBrokerConfiguration(
        redis: redis, historyLimit: config.historyLimit, logger: config.logger)
      configuration.cluster.seeds = target.seeds
      let broker = try RedisRoomBroker.connect(configuration: configuration)
      config.logger.info(
        broker.isCluster ? "rooms shared through Redis Cluster" : "rooms shared through Redis",
        metadata: ["url": "\(redis.url)", "node": broker.configuration.nodeID])
      return broker
    }
  }
}
