import SwitchboardCrypto
import Synchronization

/// The admin console's password (`--admin-password`, `--admin-password-file`;
/// docs/OPERATIONS.md, "The admin console"). Kept as a SHA-256 digest and compared in
/// constant time, like the server API's keys; replaceable while the server runs (`SIGHUP`
/// re-reads `--admin-password-file`; sessions already open stay open).
public final class AdminPassword: Sendable {
  /// The shortest password accepted, in bytes.
  public static let minimumLength = 8

  private let digest: Mutex<[UInt8]>

  /// A password to accept (the caller checks ``minimumLength``).
  public init(_ password: String) {
    digest = Mutex(SHA256.hash(Array(password.utf8)))
  }

  /// Accepts `password` from now on instead of the one before.
  public func replace(with password: String) {
    let new = SHA256.hash(Array(password.utf8))
    digest.withLock { $0 = new }
  }

  /// Whether `presented` is the password.
  public func accepts(_ presented: String) -> Bool {
    let candidate = SHA256.hash(Array(presented.utf8))
    return ConstantTime.equal(digest.withLock { $0 }, candidate) && !presented.isEmpty
  }

  /// The password of a password file's text: its first line, without the line break (and
  /// a `\r` before it).
  public static func password(inFile text: String) -> String {
    var line = Substring(text)
    if let end = line.firstIndex(where: \.isNewline) { line = line[..<end] }
    return String(line)
  }
}

/// The admin console's settings (`serve --admin-password`): off unless it has a password.
public struct AdminConfiguration: Sendable {
  /// The password; `nil` (the default) turns the console off: everything under `/admin`
  /// answers 404.
  public var password: AdminPassword?
  /// How long a session lasts from its login (absolute, not renewed by use).
  public var sessionLifetime: Duration = .seconds(12 * 3600)
  /// The most sessions kept: a login beyond it forgets the oldest.
  public var maxSessions = 100

  public init() {}

  /// Whether `/admin` answers.
  public var isEnabled: Bool { password != nil }
}
