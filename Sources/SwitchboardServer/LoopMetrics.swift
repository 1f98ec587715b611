import SwitchboardIO
import Synchronization

/// One event loop's share of `/metrics`: the bytes its connections read and sent by
/// dialect (``ByteCounter``s the connections add to at each system call, never
/// contended), how late its ticks ran (loop lag), and gauges sampled once a second on
/// the loop (timers, descriptors, bytes queued for writing). Written on the loop, read by
/// `/metrics` from any loop.
final class LoopMetrics: Sendable {
  /// The loop's index (the `loop` label).
  let index: Int
  /// Bytes of TCP line connections.
  let line = ByteCounter()
  /// Bytes of UDP datagrams.
  let udp = ByteCounter()
  /// Bytes of WebSocket connections, from the upgrade on.
  let webSocket = ByteCounter()
  /// Bytes of HTTP connections (requests and responses, up to an upgrade).
  let http = ByteCounter()
  /// How late the loop's lag tick fired, one sample per tick.
  private let lag = Mutex(MetricsHistogram())
  /// Timers waiting on the loop (cancelled ones leave within a second).
  let timers = Atomic<Int>(0)
  /// Descriptors registered with the loop.
  let descriptors = Atomic<Int>(0)
  /// Output queued for writing, over the loop's sessions.
  let queuedBytes = Atomic<Int>(0)

  /// How often the lag tick runs; every tenth also samples the gauges.
  static let tickInterval: Duration = .milliseconds(100)

  init(index: Int) {
    self.index = index
  }

  /// Counts a tick that fired `nanoseconds` after it was due.
  func recordLag(nanoseconds: UInt64) {
    lag.withLock { $0.record(nanoseconds: nanoseconds) }
  }

  /// The loop's lag histogram so far.
  var lagHistogram: MetricsHistogram { lag.withLock { $0 } }
}
