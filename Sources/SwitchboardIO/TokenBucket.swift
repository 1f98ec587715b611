/// A token bucket: `rate` tokens a second, at most `burst` held. Pure: the caller passes
/// the time (nanoseconds on any monotonic clock), so tests drive it with made-up clocks.
/// The server's per-address and per-connection limits and the mDNS responder's legacy
/// unicast limit are built on it.
public struct TokenBucket: Sendable, Equatable {
  /// Tokens added per second.
  public let rate: Double
  /// The most tokens the bucket holds (and what it starts with).
  public let burst: Double
  /// Tokens held at the last refill.
  public private(set) var tokens: Double
  private var last: UInt64

  /// A full bucket at `now`.
  public init(rate: Double, burst: Double, now: UInt64) {
    precondition(rate > 0 && burst >= 1, "a token bucket needs a positive rate and a burst of at least 1")
    self.rate = rate
    self.burst = burst
    self.tokens = burst
    self.last = now
  }

  /// Adds what accrued since the last call, then takes `cost` tokens if there are that many.
  /// - Returns: whether the tokens were taken.
  public mutating func take(_ cost: Double = 1, now: UInt64) -> Bool {
    refill(now: now)
    guard tokens >= cost else { return false }
    tokens -= cost
    return true
  }

  /// Adds what accrued since the last call (time going backwards adds nothing).
  public mutating func refill(now: UInt64) {
    guard now > last else { return }
    let elapsed = Double(now - last) / 1e9
    tokens = min(burst, tokens + elapsed * rate)
    last = now
  }

  /// Whether the bucket is full at `now` (the sender has been within its rate long enough).
  public func isFull(now: UInt64) -> Bool {
    var copy = self
    copy.refill(now: now)
    return copy.tokens >= burst
  }
}
