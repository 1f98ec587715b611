import Foundation

/// A minimal leveled logger. Libraries take one; only the CLI decides where lines go.
public struct Logger: Sendable {
  /// Severity, lowest first.
  public enum Level: Int, Sendable, Comparable, CaseIterable {
    case trace, debug, info, notice, warning, error, critical

    /// Parses `trace`…`critical` (also `warn`).
    public init?(name: String) {
      switch name.lowercased() {
      case "trace": self = .trace
      case "debug": self = .debug
      case "info": self = .info
      case "notice": self = .notice
      case "warning", "warn": self = .warning
      case "error": self = .error
      case "critical": self = .critical
      default: return nil
      }
    }

    public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    var name: String { String(describing: self) }
  }

  /// Messages below this level are dropped.
  public var level: Level
  /// The label printed with each line.
  public var label: String
  private let sink: @Sendable (String) -> Void

  /// A logger writing lines to `sink`.
  public init(label: String, level: Level = .info, sink: @escaping @Sendable (String) -> Void) {
    self.label = label
    self.level = level
    self.sink = sink
  }

  /// A logger that writes to standard error with a timestamp.
  public static func standardError(label: String = "switchboard", level: Level = .info) -> Logger {
    Logger(label: label, level: level) { line in
      FileHandle.standardError.write(Data((line + "\n").utf8))
    }
  }

  /// A logger that drops everything.
  public static let silent = Logger(label: "", level: .critical) { _ in }

  /// Logs `message` at `level` when enabled (the message is built only then).
  public func log(_ level: Level, _ message: @autoclosure () -> String) {
    guard level >= self.level else { return }
    let stamp = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
    sink("\(stamp) \(level.name) \(label): \(message())")
  }

  public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
  public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
  public func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
  public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
  public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}
