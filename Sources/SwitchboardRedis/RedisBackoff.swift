import SwitchboardIO

/// How long a client waits before each reconnect attempt: exponential back-off with jitter.
///
/// Attempt *n* (1 for the first retry) waits `initial × multiplier^(n-1)`, at most
/// ``maximum``, then shortened by a random fraction of up to ``jitter`` — so that many nodes
/// that lost Redis at the same moment do not all come back at the same moment.
/// A pure value: ``delay(attempt:using:)`` takes the random generator, so tests are exact.
public struct RedisBackoff: Sendable, Hashable {
  /// The first retry's delay (before jitter).
  public var initial: Duration
  /// The longest delay.
  public var maximum: Duration
  /// The growth per attempt.
  public var multiplier: Double
  /// The largest fraction taken off a delay at random (0 = no jitter, 1 = anywhere from 0).
  public var jitter: Double

  /// Back-off from 50 ms doubling to 5 s, with up to half of each delay taken off at random.
  public init(
    initial: Duration = .milliseconds(50), maximum: Duration = .seconds(5), multiplier: Double = 2,
    jitter: Double = 0.5
  ) {
    self.initial = initial
    self.maximum = maximum
    self.multiplier = multiplier
    self.jitter = jitter
  }

  /// The delay before retry `attempt` (1-based).
  public func delay(attempt: Int, using random: inout some RandomNumberGenerator) -> Duration {
    let base = Double(initial.nanoseconds) * power(multiplier, Double(max(0, attempt - 1)))
    let capped = min(base, Double(maximum.nanoseconds))
    let fraction = min(max(jitter, 0), 1)
    let cut = fraction > 0 ? Double.random(in: 0...fraction, using: &random) : 0
    return .nanoseconds(Int64(capped * (1 - cut)))
  }

  /// The delay before retry `attempt`, with the system's random generator.
  public func delay(attempt: Int) -> Duration {
    var random = SystemRandomNumberGenerator()
    return delay(attempt: attempt, using: &random)
  }
}

/// `base^exponent` for the small whole exponents back-off uses (no Foundation).
private func power(_ base: Double, _ exponent: Double) -> Double {
  var result = 1.0
  var n = Int(min(exponent, 64))
  while n > 0 {
    result *= base
    n -= 1
  }
  return result
}
