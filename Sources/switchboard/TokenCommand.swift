import Foundation
import SwitchboardAuth

/// `switchboard token`: mints a signed token (JWT) for scripts and tests, or checks one.
enum TokenCommand {
  static let help = """
    usage: switchboard token --sub NAME (--secret S | --secret-file F | --private-key PEM)
                             [--rooms PATTERNS] [--ttl DURATION] [--nbf DURATION] [--kid ID]
                             [--iss ISSUER] [--aud AUDIENCE] [--now SECONDS]
           switchboard token --verify TOKEN (--secret S | --secret-file F | --public-key PEM
                             | --private-key PEM) [--leeway SECONDS] [--iss ISSUER]
                             [--aud AUDIENCE] [--now SECONDS]

    Prints a token signed with an HS256 secret or an RS256/ES256 private key (PEM; the key
    type picks the algorithm), for a server started with --auth-secret or --auth-public-key.

      --sub NAME          the user name (sub), 1-64 characters
      --rooms PATTERNS    rooms it may join, comma-separated names or patterns with * (team-*);
                          default * (every room). PATTERN=CAP+CAP grants only those of
                          subscribe, publish, presence, history there (news=subscribe);
                          a pattern alone grants all four
      --ttl DURATION      lifetime: 90s, 15m, 1h, 7d or plain seconds (default 1h)
      --nbf DURATION      not valid until now + DURATION (default: valid at once)
      --kid ID            key id, put in the header
      --iss, --aud        issuer and audience claims
      --secret S          the shared secret, at least 32 bytes (visible in `ps`: prefer
                          --secret-file)
      --secret-file F     read the secret from F (one trailing newline is dropped)
      --private-key PEM   an unencrypted RSA (2048+ bits) or P-256 EC private key
      --now SECONDS       use this time (seconds since 1970) instead of the clock

    With --verify it checks TOKEN instead (signature, exp/nbf with --leeway, default 60 s) and
    prints its claims as JSON; a refused token prints the answer the server would give.
    --version prints the version and the commit it was built from.
    Exit codes: 0 printed, 1 unreadable key file, unusable key or refused token, 64 bad usage.
    """

  static let valued: Set<String> = [
    "sub", "rooms", "ttl", "nbf", "kid", "iss", "aud", "secret", "secret-file", "private-key", "public-key",
    "verify", "leeway", "now",
  ]

  struct Failure: Error, CustomStringConvertible {
    let description: String
    let code: Int32
  }

  static func run(_ argv: [String]) -> Int32 {
    let args: Arguments
    do {
      args = try Arguments(argv, valued: valued, booleans: ["help"])
    } catch {
      return Usage.fail("token", "\(error)")
    }
    if let code = args.helpOrVersion(help) { return code }
    do {
      guard args.positional.isEmpty else { throw usage("unexpected argument '\(args.positional[0])'") }
      let now =
        try args.int("now", in: 0...Int(Int32.max) * 1_000).map(Int64.init)
        ?? TokenVerifier.wallClockSeconds()
      if let token = args.value("verify") {
        return try verify(token, args, now: now)
      }
      Output.print(try mint(args, now: now))
      return ExitCode.ok
    } catch let failure as Failure {
      if failure.code == ExitCode.usage { return Usage.fail("token", failure) }
      Output.error("switchboard token: \(failure)")
      return failure.code
    } catch {
      return Usage.fail("token", "\(error)")
    }
  }

  private static func usage(_ text: String) -> Failure { Failure(description: text, code: ExitCode.usage) }

  /// The one key the flags name; `publicAllowed` for --verify.
  private static func key(_ args: Arguments, kid: String?, publicAllowed: Bool) throws -> TokenKey {
    let given = ["secret", "secret-file", "private-key"] + (publicAllowed ? ["public-key"] : [])
    let present = given.filter { args.value($0) != nil }
    if !publicAllowed, args.value("public-key") != nil {
      throw usage("--public-key cannot sign; give --secret, --secret-file or --private-key")
    }
    guard present.count == 1 else {
      throw usage("give exactly one of " + given.map { "--\($0)" }.joined(separator: ", "))
    }
    do {
      if let secret = args.value("secret") {
        do {
          return try TokenKey(secret: Array(secret.utf8), id: kid)
        } catch {
          // No crypto library is no usage mistake: exit 1, as for an unusable key.
          guard error != .unavailable else { throw error }
          throw usage("--secret: \(error.detail)")
        }
      }
      let path = args.value(present[0])!
      guard var bytes = FileManager.default.contents(atPath: path).map(Array.init) else {
        throw Failure(description: "cannot read \(path)", code: ExitCode.failure)
      }
      if present[0] == "secret-file" {
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return try TokenKey(secret: bytes, id: kid)
      }
      return try TokenKey(pem: bytes, id: kid)
    } catch let error as TokenError {
      throw Failure(
        description: "--\(present[0]): \(error.detail)",
        code: ExitCode.failure)
    }
  }

  private static func mint(_ args: Arguments, now: Int64) throws -> String {
    guard let subject = args.value("sub") else { throw usage("needs --sub NAME (or --verify TOKEN)") }
    guard !subject.isEmpty, subject.count <= TokenLimits.defaultMaxSubjectLength,
      !subject.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    else {
      throw usage(
        "--sub must be 1-\(TokenLimits.defaultMaxSubjectLength) characters without control characters")
    }
    let roomList = (args.value("rooms") ?? "*").split(separator: ",", omittingEmptySubsequences: false)
      .map { $0.trimmingCharacters(in: .whitespaces) }
    var rooms: [RoomGrant] = []
    for text in roomList {
      guard let grant = RoomGrant(parsing: text) else {
        throw usage(
          "--rooms: '\(text)' is not a room name or pattern (1-64 letters, digits, - _ . and *), "
            + "optionally followed by =CAP+CAP (subscribe, publish, presence, history)")
      }
      rooms.append(grant)
    }
    guard Set(rooms.map(\.pattern)).count <= TokenLimits.defaultMaxRooms else {
      throw usage("--rooms: more than \(TokenLimits.defaultMaxRooms)")
    }
    let ttl = try duration(args, "ttl") ?? 3_600
    guard ttl > 0 else { throw usage("--ttl must be positive") }
    let notBefore = try duration(args, "nbf").map { now + $0 }
    let claims = TokenClaims(
      subject: subject, grants: rooms, expiresAt: now + ttl, notBefore: notBefore, issuedAt: now,
      issuer: args.value("iss"), audience: args.value("aud").map { [$0] } ?? [])
    let key = try key(args, kid: args.value("kid"), publicAllowed: false)
    do {
      return try TokenSigner.sign(claims, with: key)
    } catch {
      throw Failure(description: error.detail, code: ExitCode.failure)
    }
  }

  private static func verify(_ token: String, _ args: Arguments, now: Int64) throws -> Int32 {
    let key = try key(args, kid: nil, publicAllowed: true)
    let leeway = try args.int("leeway", in: 0...86_400).map(Int64.init) ?? TokenVerifier.defaultLeeway
    let verifier = TokenVerifier(
      keys: [key], leeway: leeway, issuer: args.value("iss"), audience: args.value("aud"))
    do {
      let verified = try verifier.verify(token, now: now)
      Output.print(JSONValue.object(verified.claims.all).encoded())
      return ExitCode.ok
    } catch {
      Output.error("switchboard token: \(error.answer)\(error.detail.isEmpty ? "" : " (\(error.detail))")")
      return ExitCode.failure
    }
  }

  /// `90s`, `15m`, `1h`, `7d`, plain seconds; a leading `-` for the past (`--nbf -5m`).
  private static func duration(_ args: Arguments, _ name: String) throws -> Int64? {
    guard let raw = args.value(name) else { return nil }
    var text = Substring(raw)
    let negative = text.hasPrefix("-")
    if negative || text.hasPrefix("+") { text = text.dropFirst() }
    let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
    var multiplier: Int64 = 1
    if let last = text.last, let unit = units[last] {
      multiplier = unit
      text = text.dropLast()
    }
    guard let n = Int64(text), n >= 0, n <= 3_650 * 86_400 / multiplier else {
      throw usage("--\(name) must be a duration like 90s, 15m, 1h, 7d (up to 10 years), not '\(raw)'")
    }
    return (negative ? -n : n) * multiplier
  }
}
