import Foundation
import SwitchboardAuth
import SwitchboardServer

/// `serve`'s token and Origin flags (docs/SECURITY.md): `--auth-secret`, `--auth-secret-file`,
/// `--auth-public-key` (each repeatable: any key that verifies is enough), `--auth-leeway`,
/// `--allow-origin` (repeatable).
enum ServeAuthOptions {
  static let valued: Set<String> = ["auth-secret", "auth-secret-file", "auth-public-key", "auth-leeway", "allow-origin"]

  static let help = """
      --auth-secret S           require tokens signed with this HS256 secret (32+ bytes;
                                visible in `ps`: prefer --auth-secret-file); repeatable
      --auth-secret-file F      the same, the secret read from F (one trailing newline dropped)
      --auth-public-key PEM     require tokens signed by this RS256/ES256 key (public key,
                                certificate or private key PEM); repeatable. With any --auth-*
                                key: names come from the token's sub, rooms from its rooms,
                                UDP chat is off (docs/SECURITY.md)
      --auth-leeway SECONDS     clock difference allowed on exp/nbf (default 60)
      --allow-origin ORIGIN     a web origin (https://app.example.org) whose pages may open a
                                WebSocket here, besides the server's own; repeatable; * allows
                                every origin, null the null origin (default: refused)
    """

  /// Reads the flags into `config`.
  /// - Throws: `Arguments.UsageError` for a short secret, an unreadable or unusable key, a
  ///   malformed origin.
  static func apply(_ args: Arguments, to config: inout ServerConfiguration) throws {
    var keys: [TokenKey] = []
    for secret in args.values("auth-secret") {
      keys.append(try key("--auth-secret") { () throws(TokenError) in try TokenKey(secret: Array(secret.utf8)) })
    }
    for path in args.values("auth-secret-file") {
      var bytes = try read(path, "--auth-secret-file")
      if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
      if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
      keys.append(try key("--auth-secret-file \(path)") { () throws(TokenError) in try TokenKey(secret: bytes) })
    }
    for path in args.values("auth-public-key") {
      let bytes = try read(path, "--auth-public-key")
      keys.append(try key("--auth-public-key \(path)") { () throws(TokenError) in try TokenKey(pem: bytes) })
    }
    let leeway = try args.int("auth-leeway", in: 0...86400)
    if !keys.isEmpty {
      config.tokenVerifier = TokenVerifier(keys: keys, leeway: Int64(leeway ?? Int(TokenVerifier.defaultLeeway)))
    } else if leeway != nil {
      throw Arguments.UsageError(description: "--auth-leeway needs --auth-secret, --auth-secret-file or --auth-public-key")
    }
    let origins = args.values("allow-origin")
    for origin in origins where OriginPolicy.normalize(origin) == nil {
      throw Arguments.UsageError(
        description: "--allow-origin: '\(origin)' is not an origin (scheme://host[:port], * or null)")
    }
    config.originPolicy = OriginPolicy(allowing: origins)
  }

  private static func key(_ flag: String, _ make: () throws(TokenError) -> TokenKey) throws -> TokenKey {
    do {
      return try make()
    } catch {
      throw Arguments.UsageError(description: "\(flag): \(error.detail)")
    }
  }

  private static func read(_ path: String, _ flag: String) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw Arguments.UsageError(description: "\(flag): cannot read \(path)")
    }
    return Array(data)
  }
}
