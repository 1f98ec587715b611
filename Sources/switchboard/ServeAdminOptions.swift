import Foundation
import SwitchboardLog
import SwitchboardServer

/// `serve`'s admin console flags (docs/OPERATIONS.md, "The admin console"):
/// `--admin-password PASS` or `--admin-password-file PATH` (its first line).
enum ServeAdminOptions {
  static let valued: Set<String> = ["admin-password", "admin-password-file"]

  static let help = """
      --admin-password PASS     turn on the admin console at /admin on the HTTP and HTTPS
                                ports (live view of nodes, rooms and members; publish and
                                disconnect), for browsers and `switchboard top` that log in
                                with PASS (8 bytes or more); visible in `ps`: prefer
                                --admin-password-file. Off by default: /admin answers 404
      --admin-password-file F   the same, the password read from F's first line; read
                                again on SIGHUP (open sessions stay open)
    """

  /// Reads the flags into `config`.
  /// - Throws: `Arguments.UsageError` for both flags given, an unreadable file, or a
  ///   password shorter than ``AdminPassword/minimumLength``.
  static func apply(_ args: Arguments, to config: inout ServerConfiguration) throws {
    guard let password = try readPassword(args) else { return }
    config.admin.password = AdminPassword(password)
    if config.api.version.isEmpty { config.api.version = SwitchboardVersion.number }
  }

  /// The password of `--admin-password` or `--admin-password-file`, `nil` with neither.
  static func readPassword(_ args: Arguments) throws -> String? {
    try readPassword(value: args.value("admin-password"), file: args.value("admin-password-file"))
  }

  static func readPassword(value: String?, file: String?) throws -> String? {
    let password: String
    switch (value, file) {
    case (nil, nil):
      return nil
    case (.some, .some):
      throw Arguments.UsageError(description: "give --admin-password or --admin-password-file, not both")
    case (let value?, nil):
      password = value
    case (nil, let path?):
      guard let data = FileManager.default.contents(atPath: path) else {
        throw Arguments.UsageError(description: "--admin-password-file: cannot read \(path)")
      }
      password = AdminPassword.password(inFile: String(decoding: data, as: UTF8.self))
    }
    guard password.utf8.count >= AdminPassword.minimumLength else {
      throw Arguments.UsageError(
        description:
          "--admin-password: a password needs \(AdminPassword.minimumLength) bytes or more (this one has \(password.utf8.count))"
      )
    }
    return password
  }

  /// Whether SIGHUP re-reads the password (`--admin-password-file` was given).
  static func reloads(_ args: Arguments) -> Bool { args.value("admin-password-file") != nil }

  /// What SIGHUP does for the console: reads `--admin-password-file` again and accepts that
  /// password from then on; a file that cannot be read or holds too short a password keeps
  /// the old one (logged either way). `nil` without a password file.
  static func reload(_ args: Arguments, _ config: ServerConfiguration, logger: Log) -> (@Sendable () -> Void)?
  {
    guard reloads(args), let current = config.admin.password else { return nil }
    let file = args.value("admin-password-file")
    return {
      do {
        if let fresh = try readPassword(value: nil, file: file) { current.replace(with: fresh) }
        logger.notice("admin password reloaded")
      } catch {
        logger.error("admin password reload failed; keeping the old one", metadata: ["error": "\(error)"])
      }
    }
  }

  /// What SIGHUP reloads besides the certificates: `first` then `second`, either of which
  /// may be absent.
  static func both(_ first: (@Sendable () -> Void)?, _ second: (@Sendable () -> Void)?) -> (
    @Sendable () -> Void
  )? {
    guard let first else { return second }
    guard let second else { return first }
    return {
      first()
      second()
    }
  }
}
