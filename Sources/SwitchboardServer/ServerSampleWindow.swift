/// The arithmetic of a sample, apart from the server: rates from two readings of a counter
/// and lag quantiles from two readings of the loops' histograms. A pure value, tested alone.
struct ServerSampleWindow {
  /// What the previous sample read, to subtract from the next.
  struct Reading {
    /// When, on the monotonic clock (nanoseconds).
    var nanoseconds: UInt64
    /// `messagesPublished` then.
    var messages: Int
    /// The hub's deliveries then.
    var deliveries: Int
    /// The loops' lag buckets then, summed over the loops (per bucket, not cumulative).
    var lagBuckets: [Int]
    /// Each room's last id then.
    var lastIDs: [String: UInt64]
  }

  /// The previous reading (`nil` before the first sample).
  private(set) var previous: Reading?

  /// Per second, of a counter that went from `from` to `to` in `nanoseconds` (0 over no
  /// time, and 0 when the counter went back, as a room's id does when its epoch changes).
  static func rate(from: Int, to: Int, nanoseconds: UInt64) -> Double {
    guard nanoseconds > 0, to >= from else { return 0 }
    return Double(to - from) * 1e9 / Double(nanoseconds)
  }

  /// The `q` quantile (0…1) in milliseconds of the samples counted in `buckets` (per
  /// bucket, not cumulative; one per bound in `bounds`, seconds ascending, and a last one
  /// past them): the upper bound of the bucket it falls in, the last bound when it is in
  /// the overflow bucket, and 0 when there are no samples.
  static func quantileMilliseconds(_ q: Double, buckets: [Int], bounds: [Double]) -> Double {
    let total = buckets.reduce(0, +)
    guard total > 0, !bounds.isEmpty else { return 0 }
    let rank = max(1, Int((q * Double(total)).rounded(.up)))
    var cumulative = 0
    for (i, count) in buckets.enumerated() {
      cumulative += count
      if cumulative >= rank { return bounds[min(i, bounds.count - 1)] * 1000 }
    }
    return bounds[bounds.count - 1] * 1000
  }

  /// `later - earlier` bucket by bucket (`later` alone when the shapes differ).
  static func difference(_ later: [Int], _ earlier: [Int]) -> [Int] {
    guard later.count == earlier.count else { return later }
    return zip(later, earlier).map { max(0, $0 - $1) }
  }

  /// The rates and quantiles since the previous reading, which `reading` then replaces.
  mutating func advance(to reading: Reading, bounds: [Double]) -> Figures {
    defer { previous = reading }
    guard let previous else {
      return Figures(
        messagesPerSecond: 0, deliveriesPerSecond: 0, lagP50Ms: 0, lagP99Ms: 0,
        roomRates: reading.lastIDs.mapValues { _ in 0 })
    }
    let elapsed = reading.nanoseconds &- min(previous.nanoseconds, reading.nanoseconds)
    let lag = Self.difference(reading.lagBuckets, previous.lagBuckets)
    var rooms: [String: Double] = [:]
    rooms.reserveCapacity(reading.lastIDs.count)
    for (room, id) in reading.lastIDs {
      guard let before = previous.lastIDs[room], id >= before else {
        rooms[room] = 0
        continue
      }
      rooms[room] = Double(id - before) * 1e9 / Double(max(elapsed, 1))
    }
    return Figures(
      messagesPerSecond: Self.rate(from: previous.messages, to: reading.messages, nanoseconds: elapsed),
      deliveriesPerSecond: Self.rate(from: previous.deliveries, to: reading.deliveries, nanoseconds: elapsed),
      lagP50Ms: Self.quantileMilliseconds(0.5, buckets: lag, bounds: bounds),
      lagP99Ms: Self.quantileMilliseconds(0.99, buckets: lag, bounds: bounds), roomRates: rooms)
  }

  /// What ``advance(to:bounds:)`` works out.
  struct Figures: Equatable {
    var messagesPerSecond: Double
    var deliveriesPerSecond: Double
    var lagP50Ms: Double
    var lagP99Ms: Double
    var roomRates: [String: Double]
  }
}
