import SwitchboardChat
import SwitchboardRedis
import SwitchboardServer

/// `serve --redis URL`: the cluster broker instead of the local one (docs/SCALING.md).
enum ServeRedis {
  /// What `--redis URL` and `--redis-timeout SECONDS` ask for.
  struct Options {
    var redis: RedisConfiguration
    /// `--redis-timeout`: command and connect timeout, probe interval; `nil` keeps the defaults.
    var timeout: Duration?
  }

  /// The Redis configuration of `--redis URL` (and `--redis-timeout`).
  /// - Throws: ``Arguments/UsageError`` for a URL that is not `redis://` or `rediss://`, or a
  ///   timeout outside 0.05–3600 s.
  static func configuration(_ url: String, timeout seconds: Double?) throws -> Options {
    var redis: RedisConfiguration
    do {
      redis = try RedisConfiguration(url)
    } catch {
      throw Arguments.UsageError(description: "--redis: \(error.message)")
    }
    guard let seconds else { return Options(redis: redis) }
    guard (0.05...3600).contains(seconds) else {
      throw Arguments.UsageError(description: "--redis-timeout must be between 0.05 and 3600 seconds")
    }
    let timeout = Duration.milliseconds(Int64((seconds * 1000).rounded()))
    redis.commandTimeout = timeout
    redis.connectTimeout = timeout
    return Options(redis: redis, timeout: timeout)
  }

  /// The broker factory for ``ServerConfiguration/broker``: connects at start (the server
  /// does not start when Redis cannot be reached) and keeps `historyLimit` messages per room.
  static func broker(_ options: Options) -> @Sendable (ServerConfiguration) throws -> any RoomBroker {
    let timeout = options.timeout
    return { [redis = options.redis] config in
      var redis = redis
      redis.logger = config.logger
      var brokerConfiguration = RedisBrokerConfiguration(
        redis: redis, historyLimit: config.historyLimit, logger: config.logger)
      if let timeout {
        brokerConfiguration.publishTimeout = timeout * 2
        brokerConfiguration.probeInterval = timeout
        brokerConfiguration.probeTimeout = timeout * 0.6
      }
      let broker = try RedisRoomBroker.connect(configuration: brokerConfiguration)
      config.logger.info(
        "rooms shared through Redis",
        metadata: ["url": "\(redis.url)", "node": broker.configuration.nodeID])
      return broker
    }
  }
}
