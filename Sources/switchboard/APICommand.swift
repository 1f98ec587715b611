import Foundation
import SwitchboardAuth
import SwitchboardIO
import SwitchboardServer
import SwitchboardTLS

/// `switchboard api`: calls the server API (`serve --api-key`, docs/API.md) from a terminal
/// or a script, with the key from the environment.
enum APICommand {
  static let help = """
    usage: switchboard api [--url URL] [--api-key-file F] [--ca-file PEM | --insecure]
                           [--pretty] [--timeout SECONDS] COMMAND …

    Calls the server API of a `switchboard serve --api-key …` (docs/API.md) and prints its
    JSON answer.

    commands:
      publish --room R [--author A] [--ref REF] TEXT…     POST /api/publish
      broadcast --room R [--room R2 …] [--author A] TEXT…  POST /api/broadcast
      rooms                                                GET /api/rooms
      presence ROOM                                        GET /api/rooms/ROOM/presence
      history ROOM [--since K] [--limit N]                 GET /api/rooms/ROOM/history
      disconnect USER [--room R] [--reason TEXT]           POST /api/disconnect
      info                                                 GET /api/info

      --url URL           the server's HTTP or HTTPS port (default http://127.0.0.1:1337)
      --api-key-file F    read the key from F (its first key: one a line, # comments);
                          default: the SWITCHBOARD_API_KEY environment variable
      --ca-file PEM       https://: trust the CA certificates in PEM
      --insecure          https://: do not verify the server's certificate at all
      --pretty            print the answer indented (default: as the server sent it)
      --timeout SECONDS   give up after this long (default 15)

    Exit codes: 0 answered (2xx), 1 server or network error (5xx, no connection), 2 refused
    (4xx: the error is printed), 64 bad usage.
    """

  static let valued: Set<String> = [
    "url", "api-key-file", "ca-file", "timeout", "room", "author", "ref", "since", "limit", "reason",
  ]

  /// A request to make: method, path and JSON body.
  struct Call {
    var method: String
    var path: String
    var body: JSONValue?
  }

  static func run(_ argv: [String]) -> Int32 {
    let args: Arguments
    let call: Call
    let key: String
    let target: Target
    let timeout: Int
    do {
      args = try Arguments(argv, valued: valued, booleans: ["help", "pretty", "insecure"])
      if let code = args.helpOrVersion(help) { return code }
      call = try parse(args)
      key = try readKey(args)
      target = try Target(args)
      timeout = try args.int("timeout", in: 1...3600) ?? 15
    } catch {
      return Usage.fail("api", "\(error)")
    }
    var request = "\(call.method) \(call.path) HTTP/1.1\r\nHost: \(target.hostHeader)\r\n"
    request += "Authorization: Bearer \(key)\r\nAccept: application/json\r\nConnection: close\r\n"
    let body = call.body.map { Array($0.encoded().utf8) } ?? []
    if call.body != nil {
      request += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
    }
    let bytes = Array((request + "\r\n").utf8) + body
    let address: SocketAddress
    let tls: (context: TLSContext, serverName: String)?
    do {
      (address, tls) = try target.resolve()
    } catch {
      Output.error("switchboard api: \(error)")
      return ExitCode.failure
    }
    switch HTTPExchange.perform(bytes, to: address, tls: tls, timeout: .seconds(timeout)) {
    case .failure(let failure):
      Output.error("switchboard api: \(failure)")
      return ExitCode.failure
    case .success(let (head, answer)):
      let text = args.flag("pretty") ? pretty(answer) : String(decoding: answer, as: UTF8.self)
      let line = text.hasSuffix("\n") ? String(text.dropLast()) : text
      switch head.status {
      case 200..<300:
        Output.print(line)
        return ExitCode.ok
      case 400..<500:
        Output.error(line)
        return ExitCode.refused
      default:
        Output.error(line.isEmpty ? "switchboard api: the server answered \(head.status)" : line)
        return ExitCode.failure
      }
    }
  }

  /// The subcommand and its arguments as a request.
  static func parse(_ args: Arguments) throws -> Call {
    guard let command = args.positional.first else { throw Arguments.UsageError(description: "needs a command") }
    let rest = Array(args.positional.dropFirst())
    func one(_ what: String) throws -> String {
      guard rest.count == 1 else { throw Arguments.UsageError(description: "\(command) needs one \(what)") }
      return rest[0]
    }
    func none() throws {
      guard rest.isEmpty else { throw Arguments.UsageError(description: "unexpected argument '\(rest[0])'") }
    }
    func text() throws -> JSONValue {
      guard !rest.isEmpty else { throw Arguments.UsageError(description: "\(command) needs some text") }
      return .string(rest.joined(separator: " "))
    }
    func optional(_ flag: String) -> JSONValue? { args.value(flag).map(JSONValue.string) }
    func object(_ fields: [String: JSONValue?]) -> JSONValue { .object(fields.compactMapValues { $0 }) }
    switch command {
    case "publish":
      guard let room = args.value("room") else { throw Arguments.UsageError(description: "publish needs --room") }
      return Call(
        method: "POST", path: "/api/publish",
        body: object(["room": .string(room), "text": try text(), "author": optional("author"), "ref": optional("ref")]))
    case "broadcast":
      let rooms = args.values("room")
      guard !rooms.isEmpty else { throw Arguments.UsageError(description: "broadcast needs --room (repeatable)") }
      return Call(
        method: "POST", path: "/api/broadcast",
        body: object(["rooms": .array(rooms.map(JSONValue.string)), "text": try text(), "author": optional("author")]))
    case "rooms":
      try none()
      return Call(method: "GET", path: "/api/rooms")
    case "info":
      try none()
      return Call(method: "GET", path: "/api/info")
    case "presence":
      return Call(method: "GET", path: "/api/rooms/\(percentEncoded(try one("room")))/presence")
    case "history":
      var query: [String] = []
      if let since = try args.int("since", in: 0...Int.max) { query.append("since=\(since)") }
      if let limit = try args.int("limit", in: 1...10_000_000) { query.append("limit=\(limit)") }
      let path = "/api/rooms/\(percentEncoded(try one("room")))/history"
      return Call(method: "GET", path: query.isEmpty ? path : path + "?" + query.joined(separator: "&"))
    case "disconnect":
      return Call(
        method: "POST", path: "/api/disconnect",
        body: object(["user": .string(try one("user")), "room": optional("room"), "reason": optional("reason")]))
    default:
      throw Arguments.UsageError(description: "unknown command '\(command)'")
    }
  }

  /// The key: the first of `--api-key-file`, else `SWITCHBOARD_API_KEY`.
  static func readKey(_ args: Arguments) throws -> String {
    if let path = args.value("api-key-file") {
      guard let data = FileManager.default.contents(atPath: path) else {
        throw Arguments.UsageError(description: "--api-key-file: cannot read \(path)")
      }
      guard let key = ServerAPIKeys.keys(inFile: String(decoding: data, as: UTF8.self)).first else {
        throw Arguments.UsageError(description: "--api-key-file: no key in \(path)")
      }
      return key
    }
    guard let key = ProcessInfo.processInfo.environment["SWITCHBOARD_API_KEY"], !key.isEmpty else {
      throw Arguments.UsageError(description: "no key: set SWITCHBOARD_API_KEY or give --api-key-file")
    }
    return key
  }

  /// A path segment with everything but unreserved characters percent-encoded.
  static func percentEncoded(_ segment: String) -> String {
    var out = ""
    for byte in segment.utf8 {
      let c = Character(Unicode.Scalar(byte))
      if byte < 0x80, c.isLetter || c.isNumber || "-._~".contains(c) {
        out.append(c)
      } else {
        out += String(format: "%%%02X", byte)
      }
    }
    return out
  }

  /// The answer indented, when it is JSON; else as it came.
  static func pretty(_ body: [UInt8]) -> String {
    guard let object = try? JSONSerialization.jsonObject(with: Data(body)),
      let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    else { return String(decoding: body, as: UTF8.self) }
    return String(decoding: data, as: UTF8.self)
  }

  /// Where the API is: `--url` (http:// or https://) and the trust settings for https.
  struct Target {
    var host: String
    var port: Int
    var tls: TLSConfiguration?

    var hostHeader: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Why ``resolve()`` failed: `cannot reach HOST:PORT: REASON`.
    struct Unreachable: Error, CustomStringConvertible {
      let description: String
    }

    /// The address to connect to and, for https://, the TLS context and the name the server
    /// must prove.
    func resolve() throws(Unreachable) -> (SocketAddress, (context: TLSContext, serverName: String)?) {
      do {
        let address = try SocketAddress.resolve(host: host, port: port)
        return (address, try tls.map { (try TLSContext(configuration: $0), host) })
      } catch {
        throw Unreachable(description: "cannot reach \(host):\(port): \(error)")
      }
    }

    init(_ args: Arguments) throws {
      try self.init(
        url: args.value("url") ?? "http://127.0.0.1:1337", caFile: args.value("ca-file"),
        insecure: args.flag("insecure"))
    }

    /// The server at `url` (`http://` or `https://`), trusting `caFile`'s roots or, with
    /// `insecure`, any certificate (both for `https://` only).
    init(url: String, caFile: String?, insecure: Bool) throws {
      guard let parsed = URLComponents(string: url), let scheme = parsed.scheme?.lowercased(),
        scheme == "http" || scheme == "https", let host = parsed.host, !host.isEmpty
      else { throw Arguments.UsageError(description: "--url must be http://HOST[:PORT] or https://HOST[:PORT], not '\(url)'") }
      self.host = host
      port = parsed.port ?? (scheme == "https" ? 443 : 80)
      guard scheme == "https" || (caFile == nil && !insecure) else {
        throw Arguments.UsageError(description: "--ca-file and --insecure apply to https:// only")
      }
      guard caFile == nil || !insecure else {
        throw Arguments.UsageError(description: "--ca-file and --insecure contradict each other: give one")
      }
      if scheme == "https" {
        tls = caFile.map { TLSConfiguration(trustRoots: .caFile($0)) } ?? TLSConfiguration(verify: !insecure)
      }
    }
  }
}
