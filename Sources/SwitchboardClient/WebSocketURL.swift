/// A parsed `ws://` or `wss://` URL: scheme, host, port and request target.
///
/// Only what a WebSocket client needs (RFC 6455 section 3): no user info, and a fragment
/// is not allowed. IPv6 hosts are written in brackets (`ws://[::1]:8080/`).
public struct WebSocketURL: Sendable, Hashable, CustomStringConvertible {
  /// The URL scheme.
  public enum Scheme: String, Sendable, Hashable {
    /// Plain WebSocket over TCP, default port 80.
    case ws
    /// WebSocket over TLS, default port 443.
    case wss

    /// The port used when the URL names none.
    public var defaultPort: Int { self == .ws ? 80 : 443 }
  }

  /// The scheme.
  public var scheme: Scheme
  /// The host name or address, without brackets for IPv6.
  public var host: String
  /// The port (the scheme's default when the URL names none).
  public var port: Int
  /// The request target: the path and query (`/chat?room=lobby`), at least `/`.
  public var target: String

  /// Creates a URL from its parts.
  public init(scheme: Scheme = .ws, host: String, port: Int? = nil, target: String = "/") {
    self.scheme = scheme
    self.host = host
    self.port = port ?? scheme.defaultPort
    self.target = target.isEmpty ? "/" : target
  }

  /// Parses `ws://host[:port][/path][?query]` (or `wss://`). The scheme is
  /// case-insensitive.
  /// - Throws: ``WebSocketClientError/invalidURL`` when the text is not such a URL, and
  ///   ``WebSocketClientError/unsupportedScheme`` for any other scheme.
  public init(_ string: String) throws(WebSocketClientError) {
    guard let colon = string.firstIndex(of: ":"), string[colon...].hasPrefix("://") else {
      throw .invalidURL("'\(string)' has no scheme")
    }
    let schemeText = string[..<colon].lowercased()
    guard let scheme = Scheme(rawValue: schemeText) else { throw .unsupportedScheme(schemeText) }
    let rest = string[string.index(colon, offsetBy: 3)...]
    guard !rest.contains("#") else { throw .invalidURL("a WebSocket URL has no fragment") }
    let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
    let authority = rest[..<authorityEnd]
    var target = String(rest[authorityEnd...])
    if target.hasPrefix("?") { target = "/" + target }
    guard !authority.contains("@") else { throw .invalidURL("user info is not supported") }

    var host: Substring
    var portText: Substring?
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { throw .invalidURL("unterminated IPv6 address") }
      host = authority[authority.index(after: authority.startIndex)..<close]
      let after = authority[authority.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { throw .invalidURL("junk after IPv6 address") }
        portText = after.dropFirst()
      }
    } else if let colon = authority.firstIndex(of: ":") {
      host = authority[..<colon]
      portText = authority[authority.index(after: colon)...]
    } else {
      host = authority
    }
    guard !host.isEmpty else { throw .invalidURL("'\(string)' has no host") }
    var port: Int?
    if let portText {
      guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
        let value = Int(portText), (1...65535).contains(value)
      else { throw .invalidURL("invalid port '\(portText)'") }
      port = value
    }
    guard target.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
      throw .invalidURL("the path must be ASCII without spaces (percent-encode it)")
    }
    self.init(scheme: scheme, host: String(host), port: port, target: target)
  }

  /// The `Host` header value: the host (bracketed for IPv6) and the port unless it is
  /// the scheme's default.
  public var hostHeader: String {
    let name = host.contains(":") ? "[\(host)]" : host
    return port == scheme.defaultPort ? name : "\(name):\(port)"
  }

  /// The URL as text.
  public var description: String { "\(scheme.rawValue)://\(hostHeader)\(target)" }
}
