/// Durations counted in fixed buckets, with their sum and maximum, written out as a
/// Prometheus histogram. A plain value: the owner keeps it under its own lock (the server's
/// loop-lag ticks, the history writer's commits), which is taken once per sample.
public struct MetricsHistogram: Sendable {
  /// The buckets' upper bounds in seconds, 0.5 ms to 2.5 s.
  public static let defaultBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

  /// The upper bounds, seconds, ascending (an implicit `+Inf` bucket follows).
  public let bounds: [Double]
  private let boundsNanoseconds: [UInt64]
  /// Samples per bucket, not cumulative; the last one is `+Inf`.
  private var counts: [Int]
  /// Samples recorded.
  public private(set) var count = 0
  /// Their sum, nanoseconds.
  public private(set) var sumNanoseconds: UInt64 = 0
  /// The largest, nanoseconds.
  public private(set) var maxNanoseconds: UInt64 = 0
  /// Samples per bucket, not cumulative, one per bound and a last one for `+Inf`: two of
  /// these subtracted give the samples between them (a quantile over the last second).
  public var bucketCounts: [Int] { counts }

  /// An empty histogram with buckets up to each of `bounds` (seconds, ascending).
  public init(bounds: [Double] = MetricsHistogram.defaultBounds) {
    self.bounds = bounds
    self.boundsNanoseconds = bounds.map { UInt64($0 * 1e9) }
    self.counts = Array(repeating: 0, count: bounds.count + 1)
  }

  /// Counts one duration.
  public mutating func record(nanoseconds: UInt64) {
    var i = 0
    while i < boundsNanoseconds.count && nanoseconds > boundsNanoseconds[i] { i += 1 }
    counts[i] += 1
    count += 1
    sumNanoseconds &+= nanoseconds
    if nanoseconds > maxNanoseconds { maxNanoseconds = nanoseconds }
  }

  /// The `_bucket`, `_sum` and `_count` lines of metric `name` (no `# TYPE` line), each
  /// with `labels` (`loop="0"`, or empty) before `le`.
  public func prometheusLines(name: String, labels: String = "") -> String {
    let prefix = labels.isEmpty ? "" : labels + ","
    var text = ""
    var cumulative = 0
    for (i, bound) in bounds.enumerated() {
      cumulative += counts[i]
      text += "\(name)_bucket{\(prefix)le=\"\(bound)\"} \(cumulative)\n"
    }
    text += "\(name)_bucket{\(prefix)le=\"+Inf\"} \(count)\n"
    let braces = labels.isEmpty ? "" : "{\(labels)}"
    text += "\(name)_sum\(braces) \(Double(sumNanoseconds) / 1e9)\n"
    text += "\(name)_count\(braces) \(count)\n"
    return text
  }
}
