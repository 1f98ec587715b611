import SwitchboardIO

/// How often one source may get a legacy unicast answer (RFC 6762 §6.7): a ``TokenBucket``
/// per source address (not port: a legacy querier picks a new port per query) holding at
/// most `burst` answers and refilled with one every `interval`. At most `maxSources`
/// buckets are kept; when the table is full, full buckets (sources quiet for a while) are
/// dropped first, and a new source that still finds no room is refused (not given a fresh
/// table, as the UDP port's limiter does: these answers go to whoever the source claims to
/// be), so a flood of forged sources costs bounded memory and bounded answers.
struct MDNSLegacyRateLimit: Sendable {
  let burst: Int
  let interval: Duration
  let maxSources: Int
  private var buckets: TokenBucketTable<[UInt8]>

  init(burst: Int, interval: Duration, maxSources: Int) {
    self.burst = max(burst, 1)
    self.interval = interval
    self.maxSources = max(maxSources, 1)
    buckets = TokenBucketTable(
      rate: 1e9 / Double(max(interval.nanoseconds, 1)), burst: Double(self.burst), maxKeys: self.maxSources,
      overflow: .refuse)
  }

  /// Sources with a bucket now.
  var sourceCount: Int { buckets.count }

  /// Takes one answer from `source`'s allowance at `now`; `false` when none is left.
  mutating func allow(_ source: [UInt8], now: Deadline) -> Bool {
    buckets.take(source, now: now.nanoseconds)
  }
}
