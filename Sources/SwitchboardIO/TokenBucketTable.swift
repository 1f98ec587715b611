/// A ``TokenBucket`` per key (a source address, a member), made at the key's first take
/// and dropped once it is full again (the key was quiet long enough to refill it), so the
/// table holds only keys that were busy lately. Pure: the caller passes the time.
///
/// The server's per-address datagram limit, its joins-per-minute limit and the mDNS
/// responder's legacy unicast limit are tables of this one kind; they differ only in how
/// many keys they hold and what a new key finds when the table is full (``Overflow``).
public struct TokenBucketTable<Key: Hashable & Sendable>: Sendable {
  /// What a new key gets when the table holds ``maxKeys`` keys and none of their buckets
  /// is full again.
  public enum Overflow: Sendable, Equatable {
    /// The table starts over: every key gets a fresh burst. Keys that may be forged (a UDP
    /// source) then cannot grow it; what they lose is only the debt of busy keys.
    case startOver
    /// The new key is refused (its take fails) until a bucket refills: for allowances
    /// whose use answers whoever the key claims to be.
    case refuse
  }

  /// Tokens a second each bucket gains.
  public let rate: Double
  /// Tokens each bucket holds at most, and starts with.
  public let burst: Double
  /// Keys held at most; `nil`: as many as take (keys the caller bounds itself, such as
  /// members), swept whenever the table has doubled.
  public let maxKeys: Int?
  /// What a new key finds in a full table.
  public let overflow: Overflow
  private var buckets: [Key: TokenBucket] = [:]
  /// With no ``maxKeys``: the size at which full buckets are swept next.
  private var sweepAt = 64

  /// An empty table of buckets of `rate` tokens a second, `burst` at most.
  public init(rate: Double, burst: Double, maxKeys: Int? = nil, overflow: Overflow = .startOver) {
    self.rate = rate
    self.burst = burst
    self.maxKeys = maxKeys.map { max($0, 1) }
    self.overflow = overflow
  }

  /// Keys held now.
  public var count: Int { buckets.count }

  /// Takes one token from `key`'s bucket at `now` (monotonic nanoseconds); `false` when
  /// it has none (or, with ``Overflow/refuse``, when a new key finds no room).
  public mutating func take(_ key: Key, now: UInt64) -> Bool {
    if buckets[key] == nil {
      if let maxKeys {
        if buckets.count >= maxKeys {
          sweep(now: now)
          if buckets.count >= maxKeys {
            switch overflow {
            case .startOver: buckets.removeAll(keepingCapacity: true)
            case .refuse: return false
            }
          }
        }
      } else if buckets.count >= sweepAt {
        sweep(now: now)
        sweepAt = max(64, 2 * buckets.count)
      }
    }
    return buckets[key, default: TokenBucket(rate: rate, burst: burst, now: now)].take(now: now)
  }

  /// Drops the buckets that are full again at `now`.
  public mutating func sweep(now: UInt64) {
    buckets = buckets.filter { !$0.value.isFull(now: now) }
  }
}
