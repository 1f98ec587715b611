import SwitchboardChat
import SwitchboardLog
import Synchronization

/// Logs history-store failures at most every 10 s, so a full disk cannot flood the log;
/// live delivery goes on regardless.
final class StoreFailureReporter: Sendable {
  private let logger: Log
  private let metrics: ServerMetrics
  private let state = Mutex<(lastWarning: Int64, failures: Int)>((0, 0))

  init(logger: Log, metrics: ServerMetrics) {
    self.logger = logger
    self.metrics = metrics
  }

  func report(_ message: ChatMessage, _ error: StoreError) {
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
        metadata: ["room": message.room, "id": "\(message.id)", "error": "\(error)", "failures": "\(count)"])
    }
  }
}
