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
  private var buckets: [String: TokenBucket] = [:]

  init(rate: Int, maxSources: Int = 65_536) {
    self.rate = rate
    self.maxSources = maxSources
  }

  /// Whether one more datagram from `source` may be handled at `now`.
  mutating func admit(source: String, now: UInt64) -> Bool {
    if buckets[source] == nil, buckets.count >= maxSources {
      sweep(now: now)
      if buckets.count >= maxSources { buckets.removeAll(keepingCapacity: true) }
    }
    return buckets[source, default: TokenBucket(rate: Double(rate), burst: Double(2 * rate), now: now)]
      .take(now: now)
  }

  /// Forgets addresses whose buckets are full again.
  mutating func sweep(now: UInt64) {
    buckets = buckets.filter { !$0.value.isFull(now: now) }
  }

  /// Addresses tracked now.
  var sourceCount: Int { buckets.count }
}
