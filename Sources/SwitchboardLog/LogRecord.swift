/// One line, as a sink receives it: everything is already evaluated and merged.
public struct LogRecord: Sendable, Hashable {
  /// When the line was logged.
  public var time: LogTimestamp
  /// Its severity.
  public var level: Log.Level
  /// The logger's label.
  public var label: String
  /// What happened.
  public var message: String
  /// The logger's attached metadata with the line's own merged over it.
  public var metadata: Log.Metadata

  /// A record; sinks get them from ``Log``, tests build them to check a ``LogFormat``.
  public init(
    time: LogTimestamp, level: Log.Level, label: String, message: String, metadata: Log.Metadata = [:]
  ) {
    self.time = time
    self.level = level
    self.label = label
    self.message = message
    self.metadata = metadata
  }
}
