import SwitchboardChat
import SwitchboardRedis
import SwitchboardServer

/// `serve --redis URL`: the cluster broker instead of the local one (docs/SCALING.md).
enum ServeRedis {
  /// The Redis configuration of `--redis URL`.
  /// - Throws: ``Arguments/UsageError`` for a URL that is not `redis://` or `rediss://`.
  static func configuration(_ url: String) throws -> RedisConfiguration {
    do {
      return try RedisConfiguration(url)
    } catch {
      throw Arguments.UsageError(description: "--redis: \(error.message)")
    }
  }

  /// The broker factory for ``ServerConfiguration/broker``: connects at start (the server
  /// does not start when Redis cannot be reached) and keeps `historyLimit` messages per room.
  static func broker(_ redis: RedisConfiguration) -> @Sendable (ServerConfiguration) throws -> any RoomBroker
  {
    { config in
      var redis = redis
      redis.logger = config.logger
      let broker = try RedisRoomBroker.connect(
        configuration: RedisBrokerConfiguration(
          redis: redis, historyLimit: config.historyLimit, logger: config.logger))
      config.logger.info(
        "rooms shared through Redis",
        metadata: ["url": "\(redis.url)", "node": broker.configuration.nodeID])
      return broker
    }
  }
}
