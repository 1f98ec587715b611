import SwitchboardHTTP

/// Where a ``ChatClient`` connects: `ws://`, `wss://`, `tcp://`, `tls://` or `udp://`,
/// a host, a port and (WebSocket) a path and query; or a DNS-SD service found by name
/// (`dnssd://INSTANCE._switchboard._tcp.local`, ``service(_:path:query:)``), resolved before
/// every connect.
public struct ChatEndpoint: Sendable, Hashable, CustomStringConvertible {
  /// The transport and dialect.
  public enum Scheme: String, Sendable, Hashable, CaseIterable {
    /// WebSocket, JSON protocol (default port 1337).
    case ws
    /// WebSocket over TLS (default port 443).
    case wss
    /// TCP line dialect (default port 8080).
    case tcp
    /// Line dialect over TLS (default port 8443).
    case tls
    /// UDP datagrams (default port 8081).
    case udp

    /// The port used when the URL names none.
    public var defaultPort: Int {
      switch self {
      case .ws: 1337
      case .wss: 443
      case .tcp: 8080
      case .tls: 8443
      case .udp: 8081
      }
    }
  }

  /// The scheme.
  public var scheme: Scheme
  /// Host name or address (IPv6 without brackets).
  public var host: String
  /// Port.
  public var port: Int
  /// The path (WebSocket: `/` or `/rooms/NAME`), at least `/`.
  public var path: String
  /// The query without `?` (may be empty).
  public var query: String
  /// The DNS-SD service this endpoint names, or `nil` for an address. When set, ``scheme``
  /// is the service type's transport, ``host`` is empty and ``port`` 0: the client resolves
  /// the service before every connect (``ChatClient/Configuration/resolver``) and connects to
  /// ``endpoints(resolvedAs:)``.
  public var service: ChatService?

  /// The scheme of DNS-SD service URLs.
  public static let serviceScheme = "dnssd"

  /// An endpoint from its parts.
  init(
    scheme: Scheme, host: String, port: Int, path: String = "/", query: String = "",
    service: ChatService? = nil
  ) {
    self.scheme = scheme
    self.host = host
    self.port = port
    self.path = path
    self.query = query
    self.service = service
  }

  /// The endpoint of a DNS-SD service: its type's transport, resolved before every connect.
  /// - Parameters:
  ///   - service: The instance, such as `try ChatService(instance: "Switchboard on mac")`.
  ///   - path: WebSocket (`_http._tcp`): the path to open instead of the TXT `path`
  ///     (`/rooms/NAME` joins that room on every transport).
  ///   - query: WebSocket: the query, without `?`.
  public static func service(_ service: ChatService, path: String = "/", query: String = "") -> ChatEndpoint {
    ChatEndpoint(scheme: service.scheme, host: "", port: 0, path: path, query: query, service: service)
  }

  /// Parses `scheme://host[:port][/path][?query]`, or
  /// `dnssd://INSTANCE._name._tcp.local[/path][?query]` for a DNS-SD service (the instance
  /// percent-encoded: `dnssd://Switchboard%20on%20mac._switchboard._tcp.local`).
  /// - Throws: ``ChatClientError/invalidURL`` or ``ChatClientError/unsupportedScheme``.
  public init(_ string: String) throws(ChatClientError) {
    // Every delimiter is found as a byte, never as a `Character`: a character that joins its
    // neighbour (U+070F, a grapheme "prepend", before `:`; a combining mark after `/`) makes
    // one `Character` that is not the delimiter, and the description would not read back
    // (found by fuzz-url).
    func text(_ bytes: Substring.UTF8View) -> String { String(decoding: bytes, as: UTF8.self) }
    let utf8 = Substring(string).utf8
    guard let sep = utf8.firstRange(of: "://".utf8) else {
      throw .invalidURL("'\(string)' is not a URL like ws://host:1337/ or tcp://host:8080")
    }
    let rawScheme = text(utf8[..<sep.lowerBound]).lowercased()
    let isService = rawScheme == Self.serviceScheme
    guard let scheme = isService ? Scheme.tcp : Scheme(rawValue: rawScheme) else {
      throw .unsupportedScheme("unknown scheme '\(rawScheme)' (ws, wss, tcp, tls, udp, dnssd)")
    }
    var rest = utf8[sep.upperBound...]
    var query = ""
    if let q = rest.firstIndex(of: UInt8(ascii: "?")) {
      var after = rest[rest.index(after: q)...]
      if let hash = after.firstIndex(of: UInt8(ascii: "#")) { after = after[..<hash] }
      query = text(after)
      rest = rest[..<q]
    }
    var path = "/"
    if let slash = rest.firstIndex(of: UInt8(ascii: "/")) {
      path = text(rest[slash...])
      rest = rest[..<slash]
    }
    if isService {
      guard !rest.isEmpty else { throw .invalidURL("no service in '\(string)'") }
      self = .service(try ChatService(urlHost: Substring(rest)), path: path, query: query)
      return
    }
    var hostBytes = rest
    var port = scheme.defaultPort
    if hostBytes.first == UInt8(ascii: "[") {
      guard let close = hostBytes.firstIndex(of: UInt8(ascii: "]")) else {
        throw .invalidURL("bad IPv6 literal in '\(string)'")
      }
      let after = hostBytes[hostBytes.index(after: close)...]
      if after.first == UInt8(ascii: ":") {
        guard let p = Int(text(after.dropFirst())), (1...65535).contains(p) else {
          throw .invalidURL("bad port in '\(string)'")
        }
        port = p
      } else if !after.isEmpty {
        throw .invalidURL("bad host in '\(string)'")
      }
      hostBytes = hostBytes[hostBytes.index(after: hostBytes.startIndex)..<close]
      guard !hostBytes.contains(UInt8(ascii: "[")) else { throw .invalidURL("bad IPv6 literal in '\(string)'") }
    } else {
      if let colon = hostBytes.lastIndex(of: UInt8(ascii: ":")) {
        guard let p = Int(text(hostBytes[hostBytes.index(after: colon)...])), (1...65535).contains(p) else {
          throw .invalidURL("bad port in '\(string)'")
        }
        port = p
        hostBytes = hostBytes[..<colon]
      }
      // A colon or bracket left in the host (`ws://a:b:80`, `ws://:[::1]:80`) is neither a name
      // nor an IPv6 literal, and the description could not be read back (found by fuzz-url).
      guard !hostBytes.contains(where: { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") })
      else {
        throw .invalidURL("bad host in '\(string)'")
      }
    }
    let host = text(hostBytes)
    guard !host.isEmpty else { throw .invalidURL("no host in '\(string)'") }
    self.scheme = scheme
    self.host = host
    self.port = port
    self.path = path
    self.query = query
    self.service = nil
  }

  /// The room named by a `/rooms/NAME` path, if any.
  public var roomInPath: String? {
    guard path.utf8.starts(with: "/rooms/".utf8) else { return nil }
    let name = path.utf8.dropFirst("/rooms/".utf8.count).prefix { $0 != UInt8(ascii: "/") }
    return name.isEmpty ? nil : Substring(name).removingURLPercentEncoding()
  }

  /// `host` with brackets for IPv6, and the port.
  var authority: String {
    (host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host) + ":\(port)"
  }

  public var description: String {
    let pathAndQuery = path + (query.isEmpty ? "" : "?" + query)
    if let service {
      return "\(Self.serviceScheme)://\(service.urlHost)" + (pathAndQuery == "/" ? "" : pathAndQuery)
    }
    return "\(scheme.rawValue)://\(authority)" + (scheme == .ws || scheme == .wss ? pathAndQuery : "")
  }

  /// The WebSocket URL to open: `room` (if any) as `/rooms/ROOM`, then the query with
  /// `name` (unless empty), `since`, `epoch` and `token` replaced.
  func webSocketURL(room: String?, name: String, since: UInt64?, epoch: String?, token: String? = nil) -> String {
    let target = room.map { "/rooms/" + Self.percentEncode($0) } ?? path
    var items = query.utf8.split(separator: UInt8(ascii: "&")).filter { item in
      let key = String(decoding: item.prefix { $0 != UInt8(ascii: "=") }, as: UTF8.self)
      return key != "name" && key != "since" && key != "epoch" && (token == nil || key != "token")
    }.map { String(decoding: $0, as: UTF8.self) }
    if !name.trimmingWhitespace.isEmpty { items.append("name=" + Self.percentEncode(name)) }
    if let since { items.append("since=\(since)") }
    if let epoch { items.append("epoch=" + Self.percentEncode(epoch)) }
    if let token { items.append("token=" + Self.percentEncode(token)) }
    return "\(scheme.rawValue)://\(authority)\(target)?" + items.joined(separator: "&")
  }

  /// Percent-encodes everything but RFC 3986 unreserved characters.
  static func percentEncode(_ s: String) -> String {
    var out = ""
    for byte in s.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
        UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let hex = Array("0123456789ABCDEF".utf8)
        out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
      }
    }
    return out
  }
}
