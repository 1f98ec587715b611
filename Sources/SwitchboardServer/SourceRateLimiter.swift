import SwitchboardIO

/// `--max-datagram-rate`: a ``TokenBucket`` per source IP address (any port), so one
/// address that floods the UDP port loses its own excess datagrams while every other
/// address keeps its full rate. Pure: the caller passes the time.
///
/// The table holds at most ``maxSources`` addresses. Buckets that refilled (their address
/// was quiet for a couple of seconds) are swept; if the table is still full, it starts over
/// (every address gets a fresh burst), so spoofed sources cannot grow it without bound.
struct SourceRateLimiter: Sendable {
  let rate: Int
  let maxSources: Int
  private var buckets: TokenBucketTable<String>

  init(rate: Int, maxSources: Int = 65_536) {
    self.rate = rate
    self.maxSources = maxSources
    buckets = TokenBucketTable(rate: Double(rate), burst: Double(2 * rate), maxKeys: maxSources, overflow: .startOver)
  }

  /// Whether one more datagram from `source` may be handled at `now`.
  mutating func admit(source: String, now: UInt64) -> Bool {
    buckets.take(source, now: now)
  }

  /// Forgets addresses whose buckets are full again.
  mutating func sweep(now: UInt64) {
    buckets.sweep(now: now)
  }

  /// Addresses tracked now.
  var sourceCount: Int { buckets.count }
}
