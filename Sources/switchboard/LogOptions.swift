import SwitchboardLog

/// `--log-level` and `--log-format`: what the commands that log write to stderr.
struct LogOptions {
  /// The flags, for `Arguments(valued:)`.
  static let flags: Set<String> = ["log-level", "log-format"]

  /// The least severe level written; `nil` writes nothing.
  var level: Log.Level?
  /// Text or JSON lines.
  var format = LogFormat.text

  /// Reads the flags from `args`, with `level` when `--log-level` is not given.
  /// - Throws: `Arguments.UsageError` for a level or format that does not exist.
  init(_ args: Arguments, defaultLevel level: Log.Level?) throws {
    self.level = level
    if let name = args.value("log-level") {
      guard let parsed = Log.Level(name: name) else {
        throw Arguments.UsageError(
          description:
            "--log-level must be one of trace, debug, info, notice, warning, error, critical, not '\(name)'")
      }
      self.level = parsed
    }
    if let name = args.value("log-format") {
      guard let parsed = LogFormat(name: name) else {
        throw Arguments.UsageError(description: "--log-format must be text or json, not '\(name)'")
      }
      format = parsed
    }
  }

  /// The logger the command hands its libraries: stderr in ``format``, or one that writes
  /// nothing when ``level`` is `nil`.
  func logger(label: String = "switchboard") -> Log {
    guard let level else { return .disabled }
    return Log(label: label, level: level, sink: StreamLogSink.standardError(format: format))
  }
}
