/// The admin console's login limiter: per client address, after ``maxFailures`` failed
/// logins within ``window`` every further try — right or wrong — is refused unchecked for a
/// penalty that starts at ``firstPenalty`` and doubles with each failure after it, up to
/// ``maxPenalty`` (docs/SECURITY.md, "The admin console"). A success forgets the address.
/// A pure value with the time passed in (milliseconds on a monotonic clock), kept behind a
/// lock by the caller; the table holds at most ``capacity`` addresses (when full, the one
/// whose last failure is oldest is dropped).
struct AdminLoginLimiter {
  static let maxFailures = 4
  static let window: Int64 = 5 * 60 * 1000
  static let firstPenalty: Int64 = 2000
  static let maxPenalty: Int64 = 300_000

  /// Where one address stands.
  enum Entry: Equatable {
    /// `failures` (fewer than ``maxFailures``) since `since`; the last at `last`.
    case counting(failures: Int, since: Int64, last: Int64)
    /// Refused unchecked until `until`; the next failure blocks for `next`.
    case blocked(until: Int64, next: Int64, last: Int64)

    var last: Int64 {
      switch self {
      case .counting(_, _, let last), .blocked(_, _, let last): last
      }
    }
  }

  /// What to do with a login try.
  enum Verdict: Equatable {
    /// Check the password.
    case check
    /// Refuse it unchecked; the client may try again in this many seconds.
    case refuse(retryAfter: Int)
  }

  let capacity: Int
  private(set) var entries: [String: Entry] = [:]

  init(capacity: Int = 10_000) {
    self.capacity = max(1, capacity)
  }

  /// Whether a try from `address` at `now` is checked.
  mutating func admit(_ address: String, now: Int64) -> Verdict {
    guard let entry = current(address, now: now) else { return .check }
    guard case .blocked(let until, _, _) = entry, now < until else { return .check }
    return .refuse(retryAfter: Int((until - now + 999) / 1000))
  }

  /// A try from `address` at `now` had the wrong password.
  mutating func failed(_ address: String, now: Int64) {
    let next: Entry
    switch current(address, now: now) {
    case nil:
      next = Self.counted(failures: 1, since: now, now: now)
    case .counting(let failures, let since, _):
      next = Self.counted(failures: failures + 1, since: since, now: now)
    case .blocked(_, let penalty, _):
      next = .blocked(until: now + penalty, next: min(penalty * 2, Self.maxPenalty), last: now)
    }
    if entries[address] == nil, entries.count >= capacity,
      let oldest = entries.min(by: { $0.value.last < $1.value.last })
    {
      entries[oldest.key] = nil
    }
    entries[address] = next
  }

  /// A try from `address` had the right password: the address starts afresh.
  mutating func succeeded(_ address: String) {
    entries[address] = nil
  }

  private static func counted(failures: Int, since: Int64, now: Int64) -> Entry {
    guard failures >= maxFailures else { return .counting(failures: failures, since: since, last: now) }
    return .blocked(until: now + firstPenalty, next: min(firstPenalty * 2, maxPenalty), last: now)
  }

  /// The entry of `address`, forgotten first when its failures are older than the window
  /// (a block is forgotten a window after it ran out without another failure).
  private mutating func current(_ address: String, now: Int64) -> Entry? {
    guard let entry = entries[address] else { return nil }
    let stale: Bool
    switch entry {
    case .counting(_, let since, _): stale = now - since >= Self.window
    case .blocked(let until, _, _): stale = now - until >= Self.window
    }
    if stale { entries[address] = nil }
    return stale ? nil : entry
  }
}
