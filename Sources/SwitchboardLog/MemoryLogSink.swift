import Synchronization

/// Keeps every record in memory, for tests (and embedders) that check what was logged.
///
/// ```swift
/// let sink = MemoryLogSink()
/// var configuration = ServerConfiguration()
/// configuration.logger = Log(label: "test", level: .debug, sink: sink)
/// // …
/// #expect(sink.records.contains { $0.message == "accepted" })
/// ```
public final class MemoryLogSink: LogSink {
  private let stored = Mutex<[LogRecord]>([])

  /// An empty sink.
  public init() {}

  /// Every record written so far, oldest first.
  public var records: [LogRecord] { stored.withLock { $0 } }

  /// The records as `format` writes them, one string per record.
  public func lines(format: LogFormat = .text) -> [String] {
    records.map { format.line(for: $0) }
  }

  /// Forgets every record.
  public func removeAll() {
    stored.withLock { $0.removeAll() }
  }

  /// Keeps `record`.
  public func write(_ record: LogRecord) {
    stored.withLock { $0.append(record) }
  }
}
