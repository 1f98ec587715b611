import SwitchboardIO

/// The send budgets of UDP source addresses that have not proven they receive at their
/// address (RFC 9000 §8's anti-amplification rule): the server sends such an address at
/// most ``factor`` times the bytes it received from it (the seed's `Server received:` echo
/// aside), so a datagram whose source address is forged cannot make the server send the
/// forged address more than a third of the attack's own bytes again.
///
/// Bounded: at most ``maxSources`` addresses, each forgotten ``expiry`` after its last
/// datagram; when the table is full and nothing has expired it starts over. Forgetting an
/// address never breaks the rule: its received and sent bytes are forgotten together, and
/// later answers are paid for by later datagrams only. Pure: the caller passes the time.
struct UnprovenSources: Sendable {
  /// Bytes sent per byte received, at most.
  static let factor = 3

  private struct Entry: Sendable {
    var received: Int
    var sent = 0
    var lastSeen: UInt64
    /// When the last offer went out without being asked for (`nil`: never).
    var lastOffer: UInt64?
  }

  let maxSources: Int
  /// Nanoseconds of silence after which an address is forgotten.
  let expiry: UInt64
  private var entries: [SocketAddress: Entry] = [:]

  init(maxSources: Int = 16_384, expiry: Duration = .seconds(30)) {
    self.maxSources = max(1, maxSources)
    self.expiry = expiry.nanoseconds
  }

  /// Counts a datagram of `bytes` bytes from `source`.
  mutating func received(_ bytes: Int, from source: SocketAddress, now: UInt64) {
    if entries[source] == nil, entries.count >= maxSources {
      sweep(now: now)
      if entries.count >= maxSources { entries.removeAll(keepingCapacity: true) }
    }
    var entry = entries[source] ?? Entry(received: 0, lastSeen: now)
    entry.received += bytes
    entry.lastSeen = now
    entries[source] = entry
  }

  /// Whether `bytes` more may go to `source` within its budget; if so they are counted
  /// as sent (and, with `offerAt`, as an offer sent then).
  mutating func spend(_ bytes: Int, on source: SocketAddress, offerAt: UInt64? = nil) -> Bool {
    guard var entry = entries[source], entry.sent + bytes <= Self.factor * entry.received else {
      return false
    }
    entry.sent += bytes
    if let offerAt { entry.lastOffer = offerAt }
    entries[source] = entry
    return true
  }

  /// Whether an offer nobody asked for may go to `source` now: at most one every
  /// `spacing`, so a sender that types many lines is not answered with as many offers.
  func offerDue(to source: SocketAddress, now: UInt64, spacing: Duration = .seconds(1)) -> Bool {
    guard let entry = entries[source] else { return false }
    guard let last = entry.lastOffer else { return true }
    return now &- last >= spacing.nanoseconds
  }

  /// What `source` may still be sent (for tests).
  func budget(of source: SocketAddress) -> Int {
    entries[source].map { Self.factor * $0.received - $0.sent } ?? 0
  }

  /// Forgets `source` (it proved its address).
  mutating func forget(_ source: SocketAddress) {
    entries.removeValue(forKey: source)
  }

  /// Forgets addresses quiet for ``expiry``.
  mutating func sweep(now: UInt64) {
    entries = entries.filter { now &- $0.value.lastSeen < expiry }
  }

  /// Addresses tracked now.
  var count: Int { entries.count }
}
