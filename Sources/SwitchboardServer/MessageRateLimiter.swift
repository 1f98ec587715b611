import SwitchboardIO

/// A per-connection rate limit on messages: a ``TokenBucket`` with a burst of 2×rate, and
/// strikes for refused messages. `--max-message-rate N` charges each message 1 (N messages a
/// second); `--max-byte-rate B` charges each its length in bytes (B bytes a second; a message
/// larger than the burst needs a full bucket).
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

  /// A limiter of `rate` messages a second (burst 2×rate), closing after 2×rate strikes (at
  /// least 10).
  init(rate: Int, now: UInt64) {
    self.init(rate: rate, strikesBeforeClose: max(10, 2 * rate), now: now)
  }

  /// A limiter of `rate` units a second (burst 2×rate) closing after `strikesBeforeClose`
  /// refusals.
  init(rate: Int, strikesBeforeClose: Int, now: UInt64) {
    bucket = TokenBucket(rate: Double(rate), burst: Double(2 * rate), now: now)
    self.strikesBeforeClose = strikesBeforeClose
  }

  /// Strikes that close a connection over `--max-byte-rate`: its refusals are messages, not
  /// bytes, so the count does not grow with the rate.
  static let byteRateStrikes = 20

  /// Judges one message arriving at `now` that costs `cost` (1 for the message rate, its
  /// length for the byte rate; cut to the burst).
  mutating func admit(cost: Int = 1, now: UInt64) -> Verdict {
    bucket.refill(now: now)
    let relaxed = bucket.tokens >= bucket.burst / 2
    if bucket.take(min(Double(cost), bucket.burst), now: now) {
      if relaxed { strikes = 0 }
      return .accept
    }
    strikes += 1
    return strikes >= strikesBeforeClose ? .close : .refuse
  }
}

extension MessageRateLimiter {
  /// What a limiter counts, for its answers and counters (docs/SECURITY.md, "Limits").
  enum Unit: Hashable {
    /// `--max-message-rate`.
    case messages
    /// `--max-byte-rate`.
    case bytes

    /// The answer to a refused message (after `! ` on lines, in a JSON `rate_limited` error).
    func refusal(limit: Int) -> String {
      "slow down (limit \(limit) \(self == .messages ? "messages" : "bytes") a second)"
    }

    /// The last line before a line connection is closed.
    var closeLine: String {
      self == .messages ? "too many messages, disconnected" : "too many bytes, disconnected"
    }

    /// The configured rate.
    func limit(in limits: ServerLimits) -> Int {
      (self == .messages ? limits.maxMessageRate : limits.maxByteRate) ?? 0
    }

    /// The reason of the WebSocket close 1008.
    var closeReason: String { self == .messages ? "rate limit" : "byte rate limit" }

    /// Counts one refused message.
    func countRefusal(_ metrics: LimitMetrics) {
      switch self {
      case .messages: metrics.messagesRateLimited.add(1, ordering: .relaxed)
      case .bytes: metrics.bytesRateLimited.add(1, ordering: .relaxed)
      }
    }

    /// Counts one connection closed for it.
    func countClose(_ metrics: LimitMetrics) {
      switch self {
      case .messages: metrics.rateLimitCloses.add(1, ordering: .relaxed)
      case .bytes: metrics.byteRateLimitCloses.add(1, ordering: .relaxed)
      }
    }
  }

  /// Runs one message of `bytes` bytes through the message limiter, then (if it passed) the
  /// byte limiter — either may be off (`nil`) — and counts what they refused.
  /// - Returns: the verdict, and the limit that gave it (`.messages` when both accept).
  static func judge(
    messages: inout MessageRateLimiter?, bytes: inout MessageRateLimiter?, cost: Int, now: UInt64,
    metrics: LimitMetrics
  ) -> (Verdict, Unit) {
    for unit in [Unit.messages, .bytes] {
      let verdict: Verdict
      if unit == .messages {
        verdict = messages?.admit(now: now) ?? .accept
      } else {
        verdict = bytes?.admit(cost: cost, now: now) ?? .accept
      }
      if verdict == .accept { continue }
      unit.countRefusal(metrics)
      if verdict == .close { unit.countClose(metrics) }
      return (verdict, unit)
    }
    return (.accept, .messages)
  }
}
