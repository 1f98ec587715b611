/// `serve --auth-proxy URL` (docs/API.md, "Auth proxy"): the app's backend that admits,
/// renames or refuses each connection when it names itself, and how long the server waits for
/// and remembers its answers.
public struct AuthProxyConfiguration: Sendable, Hashable {
  /// Where the POSTs go: `http://` or `https://HOST[:PORT]/PATH` (an `https://` backend's
  /// certificate is verified against the system's roots).
  public var url: OutboundURL
  /// How long an answer may take (`--auth-proxy-timeout`, default 3 s); later is a refusal.
  public var timeout: Duration = .seconds(3)
  /// How long an answer is reused for an identical request (`--auth-proxy-cache`, default
  /// 0: every connection asks).
  public var cacheTime: Duration = .zero
  /// At most this many requests out at once; more are refused at once (fail closed), so a
  /// backend that hangs costs the server a bounded number of connections.
  public var maxInFlight = 64
  /// At most this much input (bytes, held lines or frames) a connection may send while its
  /// answer is awaited; more closes it.
  public var maxHeldBytes = 65_536

  /// The proxy at `url`, with the defaults above.
  public init(url: OutboundURL) { self.url = url }
}
