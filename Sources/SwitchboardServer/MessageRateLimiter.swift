/// The per-connection message rate limit (`--max-message-rate N`): a ``TokenBucket`` of N a
/// second with a burst of 2×N, and strikes for refused messages.
///
/// A refused message is answered (`! slow down` / a JSON `rate_limited` error), never
/// dropped silently. A sender that keeps going is closed once it collected
/// ``strikesBeforeClose`` refusals; a message accepted while the bucket still held at least
/// half its burst (the sender slowed down for about a second) clears the strikes.
struct MessageRateLimiter: Sendable, Equatable {
  /// What to do with one incoming message.
  enum Verdict: Hashable {
    /// Within the rate: handle it.
    case accept
    /// Over the rate: answer with an error, do not handle it.
    case refuse
    /// Over the rate for too long: answer, then close the connection.
    case close
  }

  private var bucket: TokenBucket
  private(set) var strikes = 0
  /// Refusals that close the connection: 2×N, at least 10.
  let strikesBeforeClose: Int

  /// A limiter of `rate` messages a second (burst 2×rate).
  init(rate: Int, now: UInt64) {
    bucket = TokenBucket(rate: Double(rate), burst: Double(2 * rate), now: now)
    strikesBeforeClose = max(10, 2 * rate)
  }

  /// Judges one message arriving at `now`.
  mutating func admit(now: UInt64) -> Verdict {
    bucket.refill(now: now)
    let relaxed = bucket.tokens >= bucket.burst / 2
    if bucket.take(now: now) {
      if relaxed { strikes = 0 }
      return .accept
    }
    strikes += 1
    return strikes >= strikesBeforeClose ? .close : .refuse
  }
}
