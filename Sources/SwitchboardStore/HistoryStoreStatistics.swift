import SwitchboardIO
import Synchronization

/// How the history writer is doing, for `/metrics`: how long its commits take, how long a
/// message waits from `append` until its batch is committed (what an `ack` waits for),
/// and how many writes are queued. Updated by the writer thread once per batch; read from
/// any thread.
public final class HistoryStoreStatistics: Sendable {
  private struct State {
    var commits = MetricsHistogram()
    var appends = MetricsHistogram()
  }

  private let state = Mutex(State())
  /// Writes queued and not yet taken into a batch.
  let queued = Atomic<Int>(0)
  /// Batches refused because the database was full (the `maxDatabaseBytes` cap or the disk).
  let fullBatches = Atomic<Int>(0)
  /// The database's size cap in bytes, 0 for none.
  public let maxBytes: Int

  init(maxBytes: Int? = nil) {
    self.maxBytes = maxBytes ?? 0
  }

  /// Batches of writes refused because the database was full.
  public var fullBatchCount: Int { fullBatches.load(ordering: .relaxed) }

  /// Records a batch: its commit took `commit`, its messages were queued at `queued`
  /// (monotonic nanoseconds) and are durable at `done`.
  func recordBatch(commit: UInt64, queued: [UInt64], done: UInt64) {
    state.withLock { state in
      state.commits.record(nanoseconds: commit)
      for time in queued { state.appends.record(nanoseconds: done &- min(time, done)) }
    }
  }

  /// Commit durations (one sample per transaction).
  public var commitLatency: MetricsHistogram { state.withLock { $0.commits } }
  /// From `append` to committed (one sample per message).
  public var appendLatency: MetricsHistogram { state.withLock { $0.appends } }
  /// Writes queued for the writer now.
  public var pendingWrites: Int { queued.load(ordering: .relaxed) }

  /// The statistics in Prometheus text format: `switchboard_history_commit_seconds`,
  /// `switchboard_history_append_seconds` (histograms), `switchboard_history_write_queue`,
  /// `switchboard_history_max_bytes` (the `--history-max-bytes` cap, 0 for none) and
  /// `switchboard_history_full_total` (batches refused because the database was full).
  public func prometheusText() -> String {
    let (commits, appends) = state.withLock { ($0.commits, $0.appends) }
    return "# TYPE switchboard_history_commit_seconds histogram\n"
      + commits.prometheusLines(name: "switchboard_history_commit_seconds")
      + "# TYPE switchboard_history_append_seconds histogram\n"
      + appends.prometheusLines(name: "switchboard_history_append_seconds")
      + "# TYPE switchboard_history_write_queue gauge\nswitchboard_history_write_queue \(pendingWrites)\n"
      + "# TYPE switchboard_history_max_bytes gauge\nswitchboard_history_max_bytes \(maxBytes)\n"
      + "# TYPE switchboard_history_full_total counter\nswitchboard_history_full_total \(fullBatchCount)\n"
  }
}
