import SwitchboardChat
import SwitchboardIO

/// `--max-joins-per-minute`: room joins (`/join`, a JSON `join` naming a room) one
/// connection or UDP source may make, with a burst of a minute's worth. Loop-confined
/// (one per ``LoopContext``). A member's bucket is made at its first join and dropped once
/// it is full again (it made no join for a minute), so the table holds only members that
/// joined lately, not every connection.
struct JoinRateLimiter {
  /// Joins a minute; `nil`: no limit.
  let perMinute: Int?
  private var buckets: [MemberID: TokenBucket] = [:]
  /// The table's size at which full buckets are swept out.
  private var sweepAt = 64

  init(perMinute: Int?) {
    self.perMinute = perMinute
  }

  /// Whether `member` may join now (`now`: monotonic nanoseconds); counts the join.
  mutating func admit(_ member: MemberID, now: UInt64) -> Bool {
    guard let perMinute else { return true }
    if buckets.count >= sweepAt {
      buckets = buckets.filter { !$0.value.isFull(now: now) }
      sweepAt = max(64, 2 * buckets.count)
    }
    var bucket =
      buckets[member] ?? TokenBucket(rate: Double(perMinute) / 60, burst: Double(perMinute), now: now)
    let admitted = bucket.take(now: now)
    buckets[member] = bucket
    return admitted
  }

  /// Buckets held now.
  var count: Int { buckets.count }

  /// The answer to a refused join (after `! ` on a line, in a JSON `too_many_joins` error).
  static func refusal(limit: Int) -> String {
    "too many room joins (at most \(limit) a minute); try again in a moment"
  }
}
