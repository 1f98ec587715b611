import Foundation
import SwitchboardAuth
import SwitchboardDiscovery
import SwitchboardServer

/// `serve`'s token and Origin flags (docs/SECURITY.md): `--auth-secret`, `--auth-secret-file`,
/// `--auth-public-key` (each repeatable: any key that verifies is enough), `--auth-leeway`,
/// `--auth-issuer`, `--auth-audience`, `--auth-timeout`, `--allow-origin`, `--allow-host`
/// (repeatable).
enum ServeAuthOptions {
  static let valued: Set<String> = [
    "auth-secret", "auth-secret-file", "auth-public-key", "auth-leeway", "auth-issuer", "auth-audience",
    "auth-timeout", "allow-origin", "allow-host",
  ]

  static let help = """
      --auth-secret S           require tokens signed with this HS256 secret (32+ bytes;
                                visible in `ps`: prefer --auth-secret-file); repeatable
      --auth-secret-file F      the same, the secret read from F (one trailing newline dropped)
      --auth-public-key PEM     require tokens signed by this RS256/ES256 key (public key,
                                certificate or private key PEM); repeatable. With any --auth-*
                                key: names come from the token's sub, rooms from its rooms,
                                UDP chat is off (docs/SECURITY.md)
      --auth-leeway SECONDS     clock difference allowed on exp/nbf (default 60)
      --auth-issuer ISS         tokens must carry exactly this iss (default: iss not checked)
      --auth-audience AUD       tokens must name this in aud (default: a token with an aud
                                is refused, as meant for somebody else)
      --auth-timeout SECONDS    a TCP/TLS line client has this long to send its auth: line
                                (default 10; 0 = no limit)
      --allow-origin ORIGIN     a web origin (https://app.example.org) whose pages may open a
                                WebSocket here, besides the server's own; repeatable; * allows
                                every origin, null the null origin (default: refused)
      --allow-host NAME         a Host name the HTTP listeners answer besides any address,
                                this machine's names, HOST.local, localhost and names
                                without a dot; repeatable; *.example.org for every name
                                under it, * for any (off: DNS rebinding then passes);
                                others get 421
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
    let issuer = try claim("auth-issuer", args)
    let audience = try claim("auth-audience", args)
    let timeout = try args.int("auth-timeout", in: 0...86400)
    if !keys.isEmpty {
      config.tokenVerifier = TokenVerifier(
        keys: keys, leeway: Int64(leeway ?? Int(TokenVerifier.defaultLeeway)), issuer: issuer,
        audience: audience)
      if let timeout { config.limits.authTimeout = timeout == 0 ? nil : .seconds(timeout) }
    } else {
      let given = [
        ("auth-leeway", leeway != nil), ("auth-issuer", issuer != nil), ("auth-audience", audience != nil),
        ("auth-timeout", timeout != nil),
      ]
      if let flag = given.first(where: { $0.1 })?.0 {
        throw Arguments.UsageError(
          description: "--\(flag) needs --auth-secret, --auth-secret-file or --auth-public-key")
      }
    }
    let origins = args.values("allow-origin")
    for origin in origins where OriginPolicy.normalize(origin) == nil {
      throw Arguments.UsageError(
        description: "--allow-origin: '\(origin)' is not an origin (scheme://host[:port], * or null)")
    }
    config.originPolicy = OriginPolicy(allowing: origins)
    let hosts = args.values("allow-host")
    for host in hosts where HostPolicy.normalize(host) == nil {
      throw Arguments.UsageError(
        description: "--allow-host: '\(host)' is not a host name (name, *.name or *; no port)")
    }
    // The mDNS label the server advertises (a fallback when the host name is unusable).
    config.hostPolicy = HostPolicy(
      allowing: hosts, machineNames: HostPolicy.machineNames() + [MDNSAdvertiser.machineHostName()])
  }

  /// An `--auth-issuer`/`--auth-audience` value: 1-256 characters without control characters.
  private static func claim(_ flag: String, _ args: Arguments) throws -> String? {
    guard let value = args.value(flag) else { return nil }
    guard (1...256).contains(value.count),
      !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    else {
      throw Arguments.UsageError(description: "--\(flag): 1-256 characters without control characters")
    }
    return value
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
