import SwitchboardHTTP
import SwitchboardTLS

/// An `http://` or `https://` URL the server calls out to (a webhook receiver, an auth
/// backend): scheme, host, port and request target. No user info, no fragment; IPv6 hosts
/// in brackets (`http://[::1]:8080/hook`).
public struct OutboundURL: Sendable, Hashable, CustomStringConvertible {
  /// The scheme.
  public enum Scheme: String, Sendable, Hashable {
    /// Plain HTTP, default port 80.
    case http
    /// HTTP over TLS (the peer's certificate is verified against the system's roots), default port 443.
    case https
  }

  /// The scheme.
  public let scheme: Scheme
  /// The host name or address, without brackets.
  public let host: String
  /// The port.
  public let port: Int
  /// The path and query, at least `/`.
  public let target: String

  /// Parses `http[s]://host[:port][/path][?query]`.
  /// - Throws: ``OutboundHTTPError/invalidURL(_:)`` saying what is wrong.
  public init(_ string: String) throws(OutboundHTTPError) {
    guard let colon = string.firstIndex(of: ":"), string[colon...].hasPrefix("://"),
      let scheme = Scheme(rawValue: string[..<colon].lowercased())
    else { throw .invalidURL("'\(string)' is not an http:// or https:// URL") }
    let rest = string[string.index(colon, offsetBy: 3)...]
    guard !rest.contains("#") else { throw .invalidURL("'\(string)' has a fragment") }
    let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
    let authority = rest[..<authorityEnd]
    var target = String(rest[authorityEnd...])
    if target.isEmpty { target = "/" } else if target.hasPrefix("?") { target = "/" + target }
    guard !authority.contains("@") else { throw .invalidURL("'\(string)': user info is not supported") }
    var host = authority
    var portText: Substring?
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { throw .invalidURL("'\(string)': unterminated IPv6 address") }
      host = authority[authority.index(after: authority.startIndex)..<close]
      let after = authority[authority.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { throw .invalidURL("'\(string)': junk after the IPv6 address") }
        portText = after.dropFirst()
      }
    } else if let portColon = authority.firstIndex(of: ":") {
      host = authority[..<portColon]
      portText = authority[authority.index(after: portColon)...]
    }
    guard !host.isEmpty else { throw .invalidURL("'\(string)' has no host") }
    var port = scheme == .http ? 80 : 443
    if let portText {
      guard portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(portText),
        (1...65535).contains(value)
      else { throw .invalidURL("'\(string)': invalid port '\(portText)'") }
      port = value
    }
    guard target.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
      throw .invalidURL("'\(string)': the path must be ASCII without spaces (percent-encode it)")
    }
    self.scheme = scheme
    self.host = String(host)
    self.port = port
    self.target = target
  }

  /// The `Host` header's value.
  public var hostHeader: String {
    let name = host.contains(":") ? "[\(host)]" : host
    return port == (scheme == .http ? 80 : 443) ? name : "\(name):\(port)"
  }

  /// The URL as written back (`http://host:port/target`).
  public var description: String { "\(scheme.rawValue)://\(host.contains(":") ? "[\(host)]" : host):\(port)\(target)" }
}

/// Why an outbound request failed. Every request ends with an answer or one of these.
public enum OutboundHTTPError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The URL is not one the client calls (raised when it is parsed, before any request).
  case invalidURL(String)
  /// No connection: the name did not resolve, the peer refused, the TLS handshake failed, or
  /// the connection was lost before a complete answer.
  case connect(String)
  /// No complete answer within the request's timeout (connecting included).
  case timeout
  /// The peer answered with a status outside 200–299 (its body was read and dropped).
  case status(Int)
  /// The answer's body (or declared length) is over the client's
  /// ``OutboundHTTPConfiguration/maxAnswerBytes``.
  case tooLarge
  /// The answer is not HTTP/1.x (bad status line or headers, a broken chunked body).
  case malformed(String)
  /// More than ``OutboundHTTPConfiguration/maxInFlight`` requests are already in flight.
  case overloaded
  /// The client was shut down.
  case closed

  /// A short explanation for logs and metrics.
  public var description: String {
    switch self {
    case .invalidURL(let why): "invalid URL: \(why)"
    case .connect(let why): "connect: \(why)"
    case .timeout: "timeout"
    case .status(let status): "status \(status)"
    case .tooLarge: "answer too large"
    case .malformed(let why): "malformed answer: \(why)"
    case .overloaded: "too many requests in flight"
    case .closed: "client closed"
    }
  }

  /// A one-word name for metrics labels (`connect`, `timeout`, `status`, `too_large`, …).
  public var kind: String {
    switch self {
    case .invalidURL: "invalid_url"
    case .connect: "connect"
    case .timeout: "timeout"
    case .status: "status"
    case .tooLarge: "too_large"
    case .malformed: "malformed"
    case .overloaded: "overloaded"
    case .closed: "closed"
    }
  }
}

/// A 2xx answer to an outbound request.
public struct OutboundHTTPResponse: Sendable {
  /// The status code (200–299).
  public var status: Int
  /// The answer's header fields.
  public var headers: HTTPHeaders
  /// The body (chunked bodies decoded), at most ``OutboundHTTPConfiguration/maxAnswerBytes``.
  public var body: [UInt8]
}

/// How an ``OutboundHTTPClient`` behaves.
public struct OutboundHTTPConfiguration: Sendable {
  /// The default for a request's timeout: connecting, sending and the whole answer.
  public var timeout: Duration
  /// The largest answer body accepted; larger is ``OutboundHTTPError/tooLarge``.
  public var maxAnswerBytes: Int
  /// Requests waiting or in flight at once; more fail at once with
  /// ``OutboundHTTPError/overloaded``.
  public var maxInFlight: Int
  /// Idle keep-alive connections kept per origin (scheme, host, port).
  public var maxIdlePerOrigin: Int
  /// How long an idle connection is kept for reuse.
  public var idleTimeout: Duration
  /// How `https://` peers are verified.
  public var tls: TLSConfiguration

  /// Creates a configuration; the defaults suit a backend on the same network.
  public init(
    timeout: Duration = .seconds(5), maxAnswerBytes: Int = 64 * 1024, maxInFlight: Int = 1024,
    maxIdlePerOrigin: Int = 8, idleTimeout: Duration = .seconds(20), tls: TLSConfiguration = TLSConfiguration()
  ) {
    self.timeout = timeout
    self.maxAnswerBytes = maxAnswerBytes
    self.maxInFlight = maxInFlight
    self.maxIdlePerOrigin = maxIdlePerOrigin
    self.idleTimeout = idleTimeout
    self.tls = tls
  }
}
