import Dispatch
import Foundation
import SwitchboardClient
import SwitchboardDiscovery
import SwitchboardTLS
import Synchronization

/// Where `chat` and `send` go: a URL (`tcp://host:port`, `udp://`, `ws://`, `tls://`, or a
/// DNS-SD service `dnssd://NAME._switchboard._tcp.local`) or `--service NAME [--type TYPE]`,
/// and `--mdns` for how a service is found; `--token`, `--ca-file` and `--insecure` for how
/// it is reached. Parsed by ``ChatEndpoint``, the client library's one URL parser.
struct ChatURL {
  /// The flags that take a value, for `Arguments(valued:)`.
  static let flags: Set<String> = Set(["service", "type", "token", "token-command", "ca-file"]).union(MDNSOptions.flags)
  /// The boolean flags, for `Arguments(booleans:)`.
  static let booleans: Set<String> = ["insecure"]
  /// The help text's lines for the flags.
  static let help = """
      --service NAME     connect to the DNS-SD service NAME instead of a URL (as
                         `switchboard browse` lists it), found anew before every connect
      --type TYPE        its type: _switchboard._tcp (lines, default), _switchboard._udp
                         (datagrams) or _http._tcp (WebSocket, on its TXT ws port and path)
    \(MDNSOptions.help)
      --token TOKEN      present TOKEN (a signed JWT) on connect: ?token=TOKEN on ws://
                         and wss://, an auth:TOKEN first line on tcp:// and tls://; not
                         for udp://. A server that checks tokens takes your name and
                         allowed rooms from it; one that does not takes the auth: line as
                         a chat message, so give tokens only to servers that ask for them
      --token-command CMD  run CMD with /bin/sh on every connect and whenever the
                         server asks for a fresh token (before the current one runs out);
                         its output, trimmed, is the token. A failing CMD fails that
                         connect (retried) or refresh (closed at expiry) with its reason
      --ca-file PEM      wss://, tls://: trust the CA certificates in PEM (instead of the
                         system trust store)
      --insecure         wss://, tls://: do not verify the server's certificate at all
                         (unsafe: anyone on the path can read and change the chat)
    """

  /// The endpoint (an address, or a service to resolve).
  let endpoint: ChatEndpoint
  /// The DNS-SD backend `--mdns` asked for.
  let mdns: MDNSOptions
  /// What `--token` gave.
  var token: String?
  /// What `--token-command` gave.
  var tokenCommand: String?
  /// Trust settings from `--ca-file` or `--insecure`; `nil` for the system trust store.
  var tls: TLSConfiguration?

  /// Reads the target: `--service`/`--type` when given, else the first positional argument.
  /// - Returns: The target and the positional arguments after it.
  /// - Throws: `Arguments.UsageError` or ``ChatClientError`` (bad URL or service name).
  static func parse(_ args: Arguments) throws -> (ChatURL, rest: [String]) {
    let mdns = try MDNSOptions(args)
    var target: ChatURL
    let rest: [String]
    if let name = args.value("service") {
      let service = try ChatService(instance: name, type: args.value("type") ?? ChatService.lineType)
      (target, rest) = (ChatURL(endpoint: .service(service), mdns: mdns), args.positional)
    } else {
      guard args.value("type") == nil else { throw Arguments.UsageError(description: "--type needs --service") }
      guard let first = args.positional.first else {
        throw Arguments.UsageError(description: "needs a URL or --service NAME")
      }
      (target, rest) = (ChatURL(endpoint: try ChatEndpoint(first), mdns: mdns), Array(args.positional.dropFirst()))
    }
    try target.readSecurity(args)
    return (target, rest)
  }

  /// Reads `--token`, `--ca-file` and `--insecure`, refusing those the scheme has no use for.
  private mutating func readSecurity(_ args: Arguments) throws(Arguments.UsageError) {
    let scheme = endpoint.scheme
    let what = endpoint.service.map { "\($0.type) services" } ?? "\(scheme.rawValue)://"
    if let token = args.value("token") {
      guard scheme != .udp else {
        throw Arguments.UsageError(description: "--token does not apply to \(what) (the UDP dialect has no token)")
      }
      guard !token.isEmpty, !token.contains(where: { $0.isWhitespace || $0.isNewline }) else {
        throw Arguments.UsageError(description: "--token must be one word without spaces")
      }
      self.token = token
    }
    if let command = args.value("token-command") {
      guard scheme != .udp else {
        throw Arguments.UsageError(
          description: "--token-command does not apply to \(what) (the UDP dialect has no token)")
      }
      guard token == nil else {
        throw Arguments.UsageError(description: "--token and --token-command contradict each other: give one")
      }
      guard !command.trimmingCharacters(in: .whitespaces).isEmpty else {
        throw Arguments.UsageError(description: "--token-command needs a command")
      }
      tokenCommand = command
    }
    let caFile = args.value("ca-file")
    let insecure = args.flag("insecure")
    guard caFile != nil || insecure else { return }
    let flag = caFile != nil ? "--ca-file" : "--insecure"
    guard scheme == .wss || scheme == .tls else {
      throw Arguments.UsageError(description: "\(flag) does not apply to \(what) (only to wss:// and tls://)")
    }
    guard caFile == nil || !insecure else {
      throw Arguments.UsageError(description: "--ca-file and --insecure contradict each other: give one")
    }
    if let caFile {
      guard FileManager.default.isReadableFile(atPath: caFile) else {
        throw Arguments.UsageError(description: "--ca-file \(caFile): no such readable file")
      }
      tls = TLSConfiguration(trustRoots: .caFile(caFile))
    } else {
      tls = TLSConfiguration(verify: false)
    }
  }

  /// Puts the token and trust settings in `configuration`; warns on stderr (as `command`)
  /// when `--insecure` turned verification off.
  func apply(to configuration: inout ChatClient.Configuration, command: String) {
    configuration.token = token
    if let tokenCommand {
      let provider = TokenCommandProvider(command: tokenCommand)
      configuration.tokenProvider = { try await provider.token() }
    }
    configuration.tls = tls
    if let tls, !tls.verify {
      Output.error(
        "switchboard \(command): WARNING: --insecure: the server's certificate is not verified; "
          + "anyone on the path can read and change this connection")
    }
  }

  /// How the client library finds a service endpoint.
  var resolver: DNSSDResolver { DNSSDResolver(backend: mdns.backend) }

  /// The address endpoints to try, best first: the endpoint itself, or what the service
  /// resolves to now (blocking the calling thread up to the resolver's timeout).
  /// - Throws: ``ChatClientError/serviceNotFound``, ``ChatClientError/connectFailed``.
  func addresses() throws(ChatClientError) -> [ChatEndpoint] {
    guard let service = endpoint.service else { return [endpoint] }
    let outcome = Mutex<Result<[ChatEndpoint], ChatClientError>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let (resolver, endpoint) = (self.resolver, self.endpoint)
    Task {
      do throws(ChatClientError) {
        let found = try await resolver.resolve(service)
        outcome.withLock { $0 = .success(endpoint.endpoints(resolvedAs: found)) }
      } catch {
        outcome.withLock { $0 = .failure(error) }
      }
      done.signal()
    }
    done.wait()
    return try outcome.withLock { $0! }.get()
  }
}
