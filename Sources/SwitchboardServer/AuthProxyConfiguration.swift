/// `serve --auth-proxy URL` (docs/API.md, "Auth proxy"): the app's backend that admits,
/// renames or refuses each connection when it names itself, and how long the server waits for
/// and remembers its answers.
public struct AuthProxyConfiguration: Sendable, Hashable {
  /// Where the POSTs go: `http://HOST[:PORT]/PATH`.
  public var url: AuthProxyURL
  /// How long an answer may take (`--auth-proxy-timeout`, default 3 s); later is a refusal.
  public var timeout: Duration = .seconds(3)
  /// How long an answer is reused for an identical request (`--auth-proxy-cache`, default
  /// 0: every connection asks).
  public var cacheTime: Duration = .zero
  /// At most this many requests out at once; more are refused at once (fail closed), so a
  /// backend that hangs costs the server a bounded number of threads and descriptors.
  public var maxInFlight = 64
  /// At most this much input (bytes, held lines or frames) a connection may send while its
  /// answer is awaited; more closes it.
  public var maxHeldBytes = 65_536

  /// The proxy at `url`, with the defaults above.
  public init(url: AuthProxyURL) { self.url = url }
}

/// An auth proxy's address: `http://HOST[:PORT][/PATH]` (plain HTTP: the outbound client
/// has no TLS; keep the backend on loopback or a private network, docs/SECURITY.md).
public struct AuthProxyURL: Sendable, Hashable, CustomStringConvertible {
  /// The host name or IP address (IPv6 without brackets).
  public let host: String
  /// The port (default 80).
  public let port: Int
  /// The request target, starting with `/`.
  public let path: String

  /// Parses `text`; `nil` unless it is an `http://` URL with a host and a valid port.
  public init?(_ text: String) {
    guard text.hasPrefix("http://") else { return nil }
    let rest = text.dropFirst("http://".count)
    let slash = rest.firstIndex(of: "/") ?? rest.endIndex
    let authority = rest[..<slash]
    path = slash == rest.endIndex ? "/" : String(rest[slash...])
    guard !authority.isEmpty, !authority.contains("@"),
      !path.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F })
    else { return nil }
    var hostPart = Substring(authority)
    var portPart: Substring? = nil
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { return nil }
      hostPart = authority[authority.index(after: authority.startIndex)..<close]
      let after = authority[authority.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { return nil }
        portPart = after.dropFirst()
      }
    } else if let colon = authority.lastIndex(of: ":") {
      hostPart = authority[..<colon]
      portPart = authority[authority.index(after: colon)...]
    }
    guard !hostPart.isEmpty else { return nil }
    host = String(hostPart)
    if let portPart {
      guard let p = Int(portPart), (1...65535).contains(p) else { return nil }
      port = p
    } else {
      port = 80
    }
  }

  /// The `Host` header's value.
  var hostHeader: String {
    let h = host.contains(":") ? "[\(host)]" : host
    return port == 80 ? h : "\(h):\(port)"
  }

  public var description: String { "http://\(hostHeader)\(path)" }
}
