/// A log-linear histogram of nanosecond values (HdrHistogram's idea, fixed precision):
/// values below 64 are exact, larger ones fall in one of 64 buckets per power of two, so
/// any recorded value is known to within 1/64 (~1.6 %). Recording is an index computation
/// and an increment; histograms from several loops merge by adding counts.
public struct LatencyHistogram: Sendable {
  static let subBits = 6
  static let subCount = 1 << subBits
  /// Values are clamped to 2^41 ns (~37 minutes).
  static let maxExponent = 41
  static let bucketCount = (maxExponent - subBits + 1) * subCount + subCount

  private(set) var counts: [UInt64]
  /// Values recorded.
  public private(set) var count: UInt64 = 0
  /// The smallest and largest values recorded, exactly.
  public private(set) var min: UInt64 = .max
  public private(set) var max: UInt64 = 0
  /// The sum of recorded values (for the mean).
  public private(set) var sum: UInt64 = 0

  public init() {
    counts = [UInt64](repeating: 0, count: Self.bucketCount)
  }

  @inline(__always)
  static func index(of value: UInt64) -> Int {
    let v = Swift.min(value, (1 << UInt64(maxExponent + 1)) - 1)
    if v < UInt64(subCount) { return Int(v) }
    let exponent = 63 - v.leadingZeroBitCount  // >= subBits
    let mantissa = Int(v >> UInt64(exponent - subBits))  // in subCount..<2*subCount
    return (exponent - subBits + 1) * subCount + (mantissa - subCount)
  }

  /// The range of values bucket `index` holds.
  static func range(of index: Int) -> ClosedRange<UInt64> {
    if index < subCount { return UInt64(index)...UInt64(index) }
    let exponent = index / subCount + subBits - 1
    let mantissa = UInt64(index % subCount + subCount)
    let shift = UInt64(exponent - subBits)
    return (mantissa << shift)...(((mantissa + 1) << shift) - 1)
  }

  /// Adds one value.
  @inline(__always)
  public mutating func record(_ value: UInt64) {
    counts[Self.index(of: value)] &+= 1
    count &+= 1
    sum &+= value
    if value < min { min = value }
    if value > max { max = value }
  }

  /// Adds every value of `other`.
  public mutating func merge(_ other: LatencyHistogram) {
    guard other.count > 0 else { return }
    for i in 0..<counts.count where other.counts[i] != 0 { counts[i] &+= other.counts[i] }
    count &+= other.count
    sum &+= other.sum
    min = Swift.min(min, other.min)
    max = Swift.max(max, other.max)
  }

  /// The value at quantile `q` (0...1): the middle of the bucket holding that rank,
  /// clamped to the exact minimum and maximum. 0 when empty.
  public func value(atQuantile q: Double) -> UInt64 {
    guard count > 0 else { return 0 }
    if q >= 1 { return max }
    let rank = Swift.max(1, UInt64((q * Double(count)).rounded(.up)))
    var seen: UInt64 = 0
    for (i, c) in counts.enumerated() where c != 0 {
      seen &+= c
      if seen >= rank {
        let r = Self.range(of: i)
        let mid = r.lowerBound + (r.upperBound - r.lowerBound) / 2
        return Swift.min(Swift.max(mid, min), max)
      }
    }
    return max
  }

  /// The mean, 0 when empty.
  public var mean: Double { count == 0 ? 0 : Double(sum) / Double(count) }

  /// Counts regrouped into buckets with the given ascending boundaries:
  /// `(lower bound, upper bound, count)` rows covering the minimum to the maximum, for
  /// the text and SVG histograms. A bucket of the fine histogram counts in the row that
  /// holds its middle.
  public func buckets(boundaries: [UInt64]) -> [(low: UInt64, high: UInt64, count: UInt64)] {
    guard count > 0, boundaries.count >= 2 else { return [] }
    var rows: [(low: UInt64, high: UInt64, count: UInt64)] = []
    for k in 0..<(boundaries.count - 1) where boundaries[k + 1] > min && boundaries[k] <= max {
      rows.append((boundaries[k], boundaries[k + 1], 0))
    }
    guard !rows.isEmpty else { return [] }
    var i = 0
    for (index, c) in counts.enumerated() where c != 0 {
      let r = Self.range(of: index)
      let mid = r.lowerBound + (r.upperBound - r.lowerBound) / 2
      // Indices ascend, so `i` only moves forward.
      while i < rows.count - 1 && mid >= rows[i].high { i += 1 }
      rows[i].count += c
    }
    return rows
  }

  /// 1-2-5 boundaries (1 µs, 2 µs, 5 µs, 10 µs, …) from 100 ns to 1000 s.
  public static let roundBoundaries: [UInt64] = {
    var out: [UInt64] = []
    var decade: UInt64 = 100
    while decade <= 100_000_000_000 {
      out.append(decade)
      out.append(decade * 2)
      out.append(decade * 5)
      decade *= 10
    }
    return out
  }()

  /// `perDecade` logarithmically even boundaries from 100 ns to 1000 s.
  public static func logBoundaries(perDecade: Int) -> [UInt64] {
    (0...(10 * perDecade)).map { UInt64((100 * pow(10, Double($0) / Double(perDecade))).rounded()) }
  }
}


#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
