import SwitchboardIO

/// How often one kind of log line may be written: a burst, then one per interval; the lines
/// held back are counted, and the next line written says how many (its `suppressed`
/// metadata). Pure: the caller passes the time, so tests drive it with made-up clocks.
///
/// Used for lines a peer can cause at will (`refused a connection`: without it a connect
/// loop from one address writes one line per attempt) and for the history store's failures
/// (a full disk fails every message).
struct LogLineLimiter: Sendable, Equatable {
  private var bucket: TokenBucket
  /// Lines held back since the last one written.
  private(set) var suppressed = 0

  /// `burst` lines at once, then one each `interval`.
  init(burst: Int, interval: Duration, now: UInt64) {
    bucket = TokenBucket(rate: 1e9 / Double(max(interval.nanoseconds, 1)), burst: Double(max(1, burst)), now: now)
  }

  /// Whether a line may be written at `now`: `nil` when it is held back (and counted), else
  /// how many were held back before it (then the count starts again).
  mutating func admit(now: UInt64) -> Int? {
    guard bucket.take(now: now) else {
      suppressed += 1
      return nil
    }
    defer { suppressed = 0 }
    return suppressed
  }
}
