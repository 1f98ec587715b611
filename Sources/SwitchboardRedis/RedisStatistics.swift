/// Counters of one client or subscriber connection, since it was made.
public struct RedisStatistics: Sendable, Hashable {
  /// Connections that became ready (the first one and every reconnect).
  public var connects = 0
  /// Ready connections lost (closed by the server, reset, timed out, unreadable bytes).
  public var losses = 0
  /// Connection attempts that failed before becoming ready.
  public var failedAttempts = 0
  /// Commands written to the server (handshake commands included).
  public var commandsSent = 0
  /// Replies matched to commands.
  public var replies = 0
  /// Commands that failed with ``RedisError/Kind/timeout``.
  public var timeouts = 0
  /// `EVALSHA` calls answered `NOSCRIPT` and re-sent as `EVAL`.
  public var noscriptFallbacks = 0
  /// Connections that fell back from `HELLO 3` to RESP2.
  public var resp2Fallbacks = 0
  /// Pub/sub messages delivered to the handler.
  public var messages = 0
  /// RESP3 push frames on a command connection (ignored).
  public var ignoredPushes = 0

  /// All zero.
  public init() {}
}
