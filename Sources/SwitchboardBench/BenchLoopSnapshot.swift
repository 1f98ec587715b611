/// What a loop hands back at the end of a run.
struct BenchLoopSnapshot: Sendable {
  var latency = LatencyHistogram()
  var connect = LatencyHistogram()
  var notes: [String] = []
}
