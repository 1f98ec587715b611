import SwitchboardIO

/// What a session keeps only when a limit or a token needs it: the rate limiters, the time
/// of the last data message and the idle and token timers. A session with none of
/// `--max-message-rate`, `--max-byte-rate`, `--idle-timeout` and an expiring token holds
/// none of this: one nil reference instead of five fields, because every idle connection
/// pays for what a session holds (docs/BENCHMARKS.md, "Memory per idle connection").
/// Loop-confined, like the session that owns it.
final class SessionLimitState {
  /// `--max-message-rate` (nil: off).
  var rateLimit: MessageRateLimiter?
  /// `--max-byte-rate` (nil: off).
  var byteLimit: MessageRateLimiter?
  /// When the last data message arrived (`--idle-timeout`).
  var lastData: Deadline
  /// `--idle-timeout` (nil: off).
  var idleTimer: Scheduled?
  /// Fires when the accepted token runs out.
  var authTimer: Scheduled?

  /// The limiters `limits` asks for, or `nil` when it asks for none of them.
  static func make(for limits: ServerLimits, now: Deadline) -> SessionLimitState? {
    guard limits.maxMessageRate != nil || limits.maxByteRate != nil || limits.idleTimeout != nil else {
      return nil
    }
    let state = SessionLimitState(now: now)
    state.rateLimit = limits.maxMessageRate.map { MessageRateLimiter(rate: $0, now: now.nanoseconds) }
    state.byteLimit = limits.maxByteRate.map {
      MessageRateLimiter(
        rate: $0, strikesBeforeClose: MessageRateLimiter.byteRateStrikes, now: now.nanoseconds)
    }
    return state
  }

  init(now: Deadline) {
    lastData = now
  }

  /// Stops both timers.
  func cancelTimers() {
    idleTimer?.cancel()
    authTimer?.cancel()
  }
}
