extension Log {
  /// Severity, least severe first (swift-log's seven levels).
  public enum Level: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// Step-by-step detail.
    case trace
    /// Per-connection events.
    case debug
    /// Normal operation worth one line.
    case info
    /// Unusual but handled.
    case notice
    /// A failure the program went on without.
    case warning
    /// An operation failed for good.
    case error
    /// The program cannot go on.
    case critical

    /// Parses `trace`, `debug`, `info`, `notice`, `warning` (or `warn`), `error` and
    /// `critical`, in any case.
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

    /// The level's name as written in lines and parsed by ``init(name:)``: `info`, `warning`, ….
    public var name: String {
      switch self {
      case .trace: "trace"
      case .debug: "debug"
      case .info: "info"
      case .notice: "notice"
      case .warning: "warning"
      case .error: "error"
      case .critical: "critical"
      }
    }

    /// The level's ``name``.
    public var description: String { name }

    /// Whether `a` is less severe than `b`.
    @inlinable
    public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
  }
}
