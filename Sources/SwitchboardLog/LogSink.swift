/// Where a ``Log``'s lines go: standard error as text or JSON (``StreamLogSink``), memory
/// (``MemoryLogSink``), or anything else that can take a ``LogRecord``.
///
/// `write` is called on whichever thread logged — event loops included — so it must be
/// safe to call concurrently and should not block for long.
public protocol LogSink: Sendable {
  /// Takes one line.
  func write(_ record: LogRecord)
}

/// The sink of ``Log/disabled``: drops everything.
struct DiscardingLogSink: LogSink {
  func write(_ record: LogRecord) {}
}
