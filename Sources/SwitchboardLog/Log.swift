/// A logger: a label, a level, metadata attached to every line, and the sink lines go to.
///
/// A `Log` is a value. Libraries take one from their configuration (the default,
/// ``disabled``, writes nothing) and copy it into what they create, attaching metadata on
/// the way (``child(label:metadata:)``, ``subscript(metadataKey:)``); only the program —
/// here the `switchboard` command — decides the level and where lines go:
///
/// ```swift
/// let root = Log(label: "switchboard", level: .info, sink: StreamLogSink.standardError(format: .json))
/// let conn = root.child(metadata: ["conn": "\(id)"])
/// conn.info("accepted", metadata: ["peer": "\(address)"])
/// conn.debug("read \(bytes.count) bytes")   // below the level: the message is never built
/// ```
///
/// The shape follows swift-log's `Logger` (levels, `[String: String]`-style metadata with
/// call-site metadata overriding attached metadata, lazily built messages), under a name
/// that clashes neither with swift-log's `Logging.Logger` nor Apple's `os.Logger`, so a
/// program can import either beside this module.
public struct Log: Sendable {
  /// Key–value pairs attached to a line, written after its message.
  public typealias Metadata = [String: String]

  /// Names where the line came from (`switchboard`, `switchboard.store`).
  public var label: String
  /// Lines below this level are dropped before their message or metadata is built.
  public var logLevel: Level
  /// Attached to every line this logger (and every child of it) writes.
  public var metadata: Metadata
  /// Where lines go.
  public let sink: any LogSink

  /// A logger writing to `sink`.
  /// - Parameters:
  ///   - label: Names where the lines come from.
  ///   - level: The least severe level written (default `.info`).
  ///   - metadata: Attached to every line.
  ///   - sink: Where lines go.
  public init(label: String, level: Level = .info, metadata: Metadata = [:], sink: any LogSink) {
    self.label = label
    self.logLevel = level
    self.metadata = metadata
    self.sink = sink
  }

  /// A logger that writes nothing: what a library uses until it is given one.
  public static var disabled: Log {
    Log(label: "", level: .critical, sink: DiscardingLogSink())
  }

  /// The value attached under `key`, or `nil`; setting `nil` removes it.
  public subscript(metadataKey key: String) -> String? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  /// A copy that writes with `label` (when given) and with `metadata` attached on top
  /// of this logger's (a key in both takes the new value).
  public func child(label: String? = nil, metadata: Metadata = [:]) -> Log {
    var copy = self
    if let label { copy.label = label }
    copy.metadata.merge(metadata) { _, new in new }
    return copy
  }

  /// Whether a line at `level` would be written.
  @inlinable
  public func isEnabled(_ level: Level) -> Bool {
    level >= logLevel
  }

  /// Writes `message` at `level` when the level is enabled; otherwise neither `message`
  /// nor `metadata` is evaluated.
  /// - Parameters:
  ///   - level: The line's severity.
  ///   - message: What happened, in a few words (`"accepted"`, `"dropped slow consumer"`).
  ///   - metadata: Merged over the attached metadata for this line only.
  @inlinable
  public func log(
    level: Level, _ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil
  ) {
    guard level >= logLevel else { return }
    emit(level, message(), metadata())
  }

  /// Builds the record and hands it to the sink; out of line, so that the inlined check
  /// above is all a disabled line costs.
  @usableFromInline
  func emit(_ level: Level, _ message: String, _ extra: Metadata?) {
    var merged = metadata
    if let extra { merged.merge(extra) { _, new in new } }
    sink.write(LogRecord(time: .now(), level: level, label: label, message: message, metadata: merged))
  }

  /// Writes at ``Level/trace``: step-by-step detail (every frame, every timer).
  @inlinable
  public func trace(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
    log(level: .trace, message(), metadata: metadata())
  }

  /// Writes at ``Level/debug``: per-connection events (accepted, closed, refused upgrades).
  @inlinable
  public func debug(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
    log(level: .debug, message(), metadata: metadata())
  }

  /// Writes at ``Level/info``: what an operator wants to see once (listening, stopped).
  @inlinable
  public func info(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
    log(level: .info, message(), metadata: metadata())
  }

  /// Writes at ``Level/notice``: unusual but handled (a slow consumer dropped, a signal).
  @inlinable
  public func notice(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
    log(level: .notice, message(), metadata: metadata())
  }

  /// Writes at ``Level/warning``: something failed and the program went on without it.
  @inlinable
  public func warning(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
    log(level: .warning, message(), metadata: metadata())
  }

  /// Writes at ``Level/error``: an operation failed for good.
  @inlinable
  public func error(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
    log(level: .error, message(), metadata: metadata())
  }

  /// Writes at ``Level/critical``: the program cannot go on.
  @inlinable
  public func critical(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
    log(level: .critical, message(), metadata: metadata())
  }
}
