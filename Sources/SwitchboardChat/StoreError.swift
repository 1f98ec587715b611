/// Why a history store failed.
///
/// Open-enum style, like the client's errors: compare with the static members
/// (`error == .closed`); ``message`` carries the detail (the path, SQLite's words).
public struct StoreError: Error, Sendable, CustomStringConvertible, Hashable {
  private enum Code: Hashable, Sendable {
    case failed
    case cannotOpen
    case readFailed
    case writeFailed
    case closed
    case queueFull
  }

  private let code: Code
  /// What went wrong, for logs and startup errors.
  public let message: String

  private init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  /// A failure of no particular kind (``failed``) with `message` as its detail: what a store
  /// written elsewhere throws when none of the kinds below fits.
  public init(_ message: String) { self.init(.failed, message) }

  public var description: String { message }

  /// A failure of no particular kind.
  public static let failed = StoreError(.failed, "history store failed")
  /// The store could not be opened: its directory or file cannot be made or used, the file is
  /// not a Switchboard history (or of a newer schema), or it failed its integrity check.
  public static let cannotOpen = StoreError(.cannotOpen, "cannot open history")
  /// Reading the store failed.
  public static let readFailed = StoreError(.readFailed, "cannot read history")
  /// Writing (or pruning) the store failed: a full disk, a database that grew past its limit.
  public static let writeFailed = StoreError(.writeFailed, "cannot write history")
  /// The store is closed (the server is stopping): nothing more is read or written.
  public static let closed = StoreError(.closed, "history store is closed")
  /// Too many writes wait for the store's writer; this one was refused.
  public static let queueFull = StoreError(.queueFull, "history write queue is full")

  /// ``cannotOpen`` with `detail` as its message.
  public static func cannotOpen(_ detail: String) -> StoreError { .init(.cannotOpen, detail) }
  /// ``readFailed`` with `detail` as its message.
  public static func readFailed(_ detail: String) -> StoreError { .init(.readFailed, detail) }
  /// ``writeFailed`` with `detail` as its message.
  public static func writeFailed(_ detail: String) -> StoreError { .init(.writeFailed, detail) }
  /// ``queueFull`` with `detail` as its message.
  public static func queueFull(_ detail: String) -> StoreError { .init(.queueFull, detail) }
  /// This error's kind with `detail` as its message (a caller adding advice keeps the kind).
  public func with(message detail: String) -> StoreError { .init(code, detail) }

  /// Errors are equal when they are the same kind, whatever the message.
  public static func == (lhs: StoreError, rhs: StoreError) -> Bool { lhs.code == rhs.code }
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
