/// When a ``ChatClient`` tries again after a failed connect or a lost connection:
/// exponential backoff with jitter.
///
/// The n-th consecutive attempt (n ≥ 1) waits `min(initial × multiplierⁿ⁻¹, maximum)`,
/// then that is scattered by ±`jitter` (a fraction: 0.2 means ±20 %), so a thousand
/// clients cut off together do not come back in the same millisecond. A connection that
/// reached the server resets the count.
public struct ReconnectPolicy: Sendable, Hashable {
  /// The delay before the first retry (default 250 ms).
  public var initialDelay: Duration
  /// The longest delay (default 30 s).
  public var maximumDelay: Duration
  /// How much each failed attempt multiplies the delay (default 2).
  public var multiplier: Double
  /// The random spread as a fraction of the delay, 0...1 (default 0.2).
  public var jitter: Double
  /// How many consecutive failed attempts before giving up; `nil` (the default) never
  /// gives up, `0` never reconnects.
  public var maxAttempts: Int?

  /// Creates a policy; every parameter has the documented default.
  public init(
    initialDelay: Duration = .milliseconds(250), maximumDelay: Duration = .seconds(30), multiplier: Double = 2,
    jitter: Double = 0.2, maxAttempts: Int? = nil
  ) {
    self.initialDelay = initialDelay
    self.maximumDelay = maximumDelay
    self.multiplier = max(1, multiplier)
    self.jitter = min(max(0, jitter), 1)
    self.maxAttempts = maxAttempts
  }

  /// Never reconnect: the first lost connection ends the client.
  public static let never = ReconnectPolicy(maxAttempts: 0)

  /// The delay before attempt `attempt` (1 for the first retry), or `nil` when the
  /// policy gives up. `random` supplies a value in 0...1 (tests inject a fixed one).
  public func delay(forAttempt attempt: Int, random: Double = Double.random(in: 0...1)) -> Duration? {
    if let maxAttempts, attempt > maxAttempts { return nil }
    let base = Self.seconds(initialDelay) * pow(multiplier, Double(max(0, attempt - 1)))
    let capped = min(base, Self.seconds(maximumDelay))
    let spread = capped * jitter * (2 * random - 1)
    return .nanoseconds(Int64(max(0, capped + spread) * 1e9))
  }

  static func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
  }

  private func pow(_ base: Double, _ exponent: Double) -> Double {
    var result = 1.0
    var n = Int(exponent)
    while n > 0 && result < 1e12 {
      result *= base
      n -= 1
    }
    return result
  }
}
