import SwitchboardChat
import SwitchboardIO
import SwitchboardLog
import Synchronization

/// Logs messages the broker failed to keep (a history store's failures) at most every
/// 10 s, so a full disk cannot flood the log; live delivery goes on regardless.
final class StoreFailureReporter: Sendable {
  private let logger: Log
  private let metrics: ServerMetrics
  /// One warning at once, then at most one every 10 s; and the failures so far.
  private let state = Mutex<(lines: LogLineLimiter, failures: Int)>(
    (LogLineLimiter(burst: 1, interval: .seconds(10), now: Deadline.now().nanoseconds), 0))

  init(logger: Log, metrics: ServerMetrics) {
    self.logger = logger
    self.metrics = metrics
  }

  func report(room: String, id: UInt64?, _ error: BrokerError) {
    metrics.storeFailures.add(1, ordering: .relaxed)
    let now = Deadline.now().nanoseconds
    let count = state.withLock { state -> Int? in
      state.failures += 1
      return state.lines.admit(now: now) == nil ? nil : state.failures
    }
    if let count {
      logger.warning(
        "history store failed to keep a message; live delivery continues",
        metadata: [
          "room": room, "id": id.map { "\($0)" } ?? "-", "error": "\(error)", "failures": "\(count)",
        ])
    }
  }
}
