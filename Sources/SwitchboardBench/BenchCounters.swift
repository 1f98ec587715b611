import Synchronization

/// Counters a loop publishes for the once-a-second progress line (read from the main
/// thread; written by the loop once per tick).
final class BenchCounters: Sendable {
  let opened = Atomic<Int>(0)
  let failed = Atomic<Int>(0)
  let closed = Atomic<Int>(0)
  let sent = Atomic<Int>(0)
  let sentMeasured = Atomic<Int>(0)
  let delivered = Atomic<Int>(0)
  let deliveredMeasured = Atomic<Int>(0)
  /// Frames or lines received, benchmark messages or not.
  let frames = Atomic<Int>(0)
}
