import SwitchboardIO
import SwitchboardRESP

/// A dedicated Redis pub/sub connection: `SUBSCRIBE`, `PSUBSCRIBE` and `SSUBSCRIBE` (sharded,
/// Redis 7), messages delivered to one handler on the subscriber's loop.
///
/// ```swift
/// let subscriber = try await RedisSubscriber.connect(configuration: configuration, on: loop) { message in
///   print(message.channel, String(decoding: message.payload, as: UTF8.self))
/// }
/// try await subscriber.subscribe(["room:{lobby}"])
/// ```
///
/// RESP3 delivers messages as push frames, RESP2 as arrays in the reply stream; both arrive
/// here the same way. The subscriber remembers its subscriptions: after a reconnect it
/// subscribes to all of them again and becomes ``RedisConnectionState/ready(protocolVersion:)``
/// only once Redis confirmed every one — messages published while it was away are lost (pub/sub
/// keeps nothing), which is why the `stateHandler` matters: whoever relies on the messages
/// catches up from a durable source after each `ready`.
public final class RedisSubscriber: Sendable {
  /// The loop the connection and the handler run on.
  public let loop: EventLoop
  /// How it connects.
  public let configuration: RedisConfiguration
  private let handle: RedisHandle

  /// Starts connecting (returns at once). `handler` gets every message, on `loop`;
  /// `stateHandler` every state change, on `loop`.
  public init(
    configuration: RedisConfiguration, on loop: EventLoop,
    stateHandler: (@Sendable (RedisConnectionState) -> Void)? = nil,
    handler: @escaping @Sendable (RedisPubSubMessage) -> Void
  ) {
    self.loop = loop
    self.configuration = configuration
    handle = RedisHandle(
      configuration: configuration, loop: loop, role: .subscriber, stateHandler: stateHandler,
      messageHandler: handler)
  }

  /// Connects and returns once ready.
  /// - Throws: ``RedisError`` when the first attempt fails (the subscriber is then closed).
  public static func connect(
    configuration: RedisConfiguration, on loop: EventLoop,
    stateHandler: (@Sendable (RedisConnectionState) -> Void)? = nil,
    handler: @escaping @Sendable (RedisPubSubMessage) -> Void
  ) async throws(RedisError) -> RedisSubscriber {
    let subscriber = RedisSubscriber(
      configuration: configuration, on: loop, stateHandler: stateHandler, handler: handler)
    try await subscriber.handle.connected()
    return subscriber
  }

  deinit { handle.closeLater() }

  /// The connection's state now.
  public var state: RedisConnectionState { handle.observer.state }

  /// Closes the connection for good.
  public func close() { handle.close() }

  /// Drops the current connection and makes a new one (subscribing to everything again
  /// before it reports `ready`), as after a lost connection: for a connection that looks
  /// alive but has stopped delivering. Returns at once.
  public func reconnect(reason: String) {
    handle.run { $0.lose(.connectionLost(reason)) }
  }

  /// Subscribes to `channels`; returns once Redis confirmed each (while disconnected: once
  /// the next connection has subscribed).
  /// - Throws: ``RedisError`` (timeout, closed).
  public func subscribe(_ channels: [String], timeout: Duration? = nil) async throws(RedisError) {
    try await change(.channel, subscribe: true, channels, timeout)
  }

  /// Subscribes to channels matching `patterns` (`PSUBSCRIBE`).
  public func psubscribe(_ patterns: [String], timeout: Duration? = nil) async throws(RedisError) {
    try await change(.pattern, subscribe: true, patterns, timeout)
  }

  /// Subscribes to shard channels (`SSUBSCRIBE`, sharded pub/sub).
  public func ssubscribe(_ channels: [String], timeout: Duration? = nil) async throws(RedisError) {
    try await change(.shard, subscribe: true, channels, timeout)
  }

  /// Unsubscribes from `channels`.
  public func unsubscribe(_ channels: [String], timeout: Duration? = nil) async throws(RedisError) {
    try await change(.channel, subscribe: false, channels, timeout)
  }

  /// Unsubscribes from `patterns`.
  public func punsubscribe(_ patterns: [String], timeout: Duration? = nil) async throws(RedisError) {
    try await change(.pattern, subscribe: false, patterns, timeout)
  }

  /// Unsubscribes from shard channels.
  public func sunsubscribe(_ channels: [String], timeout: Duration? = nil) async throws(RedisError) {
    try await change(.shard, subscribe: false, channels, timeout)
  }

  /// `PING` on the subscription connection: returns when the server answered, which shows
  /// the connection is alive (a probe for connections that may have gone silent).
  public func ping(timeout: Duration? = nil) async throws(RedisError) {
    _ = try await handle.call { connection, done in
      connection.send(RESPCommand("PING"), timeout: timeout, done)
    }
    .get()
  }

  /// The connection's counters now.
  public func statistics() async -> RedisStatistics { await handle.statistics() }

  private func change(
    _ kind: RedisSubscriptions.Kind, subscribe: Bool, _ names: [String], _ timeout: Duration?
  ) async throws(RedisError) {
    let result: Result<Void, RedisError> = await handle.call { connection, done in
      if subscribe {
        connection.subscribe(kind, names, timeout: timeout, done)
      } else {
        connection.unsubscribe(kind, names, timeout: timeout, done)
      }
    }
    try result.get()
  }
}
