import SwitchboardChat
import SwitchboardLog
import Synchronization

/// Logs messages the broker failed to keep (a history store's failures) at most every
/// 10 s, so a full disk cannot flood the log; live delivery goes on regardless.
final class StoreFailureReporter: Sendable {
  private let logger: Log
  private let metrics: ServerMetrics
  private let state = Mutex<(lastWarning: Int64, failures: Int)>((0, 0))

  init(logger: Log, metrics: ServerMetrics) {
    self.logger = logger
    self.metrics = metrics
  }

  func report(room: String, id: UInt64?, _ error: BrokerError) {
    metrics.storeFailures.add(1, ordering: .relaxed)
    let now = ChatClock.milliseconds()
    let count = state.withLock { state -> Int? in
      state.failures += 1
      guard now - state.lastWarning >= 10_000 else { return nil }
      state.lastWarning = now
      return state.failures
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
