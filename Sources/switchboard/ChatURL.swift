import Dispatch
import SwitchboardClient
import SwitchboardDiscovery
import Synchronization

/// Where `chat` and `send` go: a URL (`tcp://host:port`, `udp://`, `ws://`, `tls://`, or a
/// DNS-SD service `dnssd://NAME._switchboard._tcp.local`) or `--service NAME [--type TYPE]`,
/// and `--mdns` for how a service is found. Parsed by ``ChatEndpoint``, the client
/// library's one URL parser.
struct ChatURL {
  /// The flags, for `Arguments(valued:)`.
  static let flags: Set<String> = Set(["service", "type"]).union(MDNSOptions.flags)
  /// The help text's lines for the flags.
  static let help = """
      --service NAME     connect to the DNS-SD service NAME instead of a URL (as
                         `switchboard browse` lists it), found anew before every connect
      --type TYPE        its type: _switchboard._tcp (lines, default), _switchboard._udp
                         (datagrams) or _http._tcp (WebSocket, on its TXT ws port and path)
    \(MDNSOptions.help)
    """

  /// The endpoint (an address, or a service to resolve).
  let endpoint: ChatEndpoint
  /// The DNS-SD backend `--mdns` asked for.
  let mdns: MDNSOptions

  /// Reads the target: `--service`/`--type` when given, else the first positional argument.
  /// - Returns: The target and the positional arguments after it.
  /// - Throws: `Arguments.UsageError` or ``ChatClientError`` (bad URL or service name).
  static func parse(_ args: Arguments) throws -> (ChatURL, rest: [String]) {
    let mdns = try MDNSOptions(args)
    if let name = args.value("service") {
      let service = try ChatService(instance: name, type: args.value("type") ?? ChatService.lineType)
      return (ChatURL(endpoint: .service(service), mdns: mdns), args.positional)
    }
    guard args.value("type") == nil else { throw Arguments.UsageError(description: "--type needs --service") }
    guard let first = args.positional.first else {
      throw Arguments.UsageError(description: "needs a URL or --service NAME")
    }
    return (ChatURL(endpoint: try ChatEndpoint(first), mdns: mdns), Array(args.positional.dropFirst()))
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
