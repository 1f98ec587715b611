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
  /// Bounded by the members themselves (one bucket each at most), so no cap of its own.
  private var buckets: TokenBucketTable<MemberID>?

  init(perMinute: Int?) {
    self.perMinute = perMinute
    buckets = perMinute.map { TokenBucketTable(rate: Double($0) / 60, burst: Double($0)) }
  }

  /// Whether `member` may join now (`now`: monotonic nanoseconds); counts the join.
  mutating func admit(_ member: MemberID, now: UInt64) -> Bool {
    buckets?.take(member, now: now) ?? true
  }

  /// Buckets held now.
  var count: Int { buckets?.count ?? 0 }

  /// The answer to a refused join (after `! ` on a line, in a JSON `too_many_joins` error).
  static func refusal(limit: Int) -> String {
    "too many room joins (at most \(limit) a minute); try again in a moment"
  }
}
