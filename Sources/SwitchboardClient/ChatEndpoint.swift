import SwitchboardHTTP

/// Where a ``ChatClient`` connects: `ws://`, `wss://`, `tcp://`, `tls://` or `udp://`,
/// a host, a port and (WebSocket) a path and query.
public struct ChatEndpoint: Sendable, Hashable, CustomStringConvertible {
  /// The transport and dialect.
  public enum Scheme: String, Sendable, Hashable, CaseIterable {
    /// WebSocket, JSON protocol (default port 1337).
    case ws
    /// WebSocket over TLS (default port 443). Not available until ``WebSocketClient``
    /// speaks TLS.
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

  /// Parses `scheme://host[:port][/path][?query]`.
  /// - Throws: ``ChatClientError/invalidURL`` or ``ChatClientError/unsupportedScheme``.
  public init(_ string: String) throws(ChatClientError) {
    guard let sep = string.range(of: "://") else {
      throw .invalidURL("'\(string)' is not a URL like ws://host:1337/ or tcp://host:8080")
    }
    let rawScheme = string[..<sep.lowerBound].lowercased()
    guard let scheme = Scheme(rawValue: rawScheme) else {
      throw .unsupportedScheme("unknown scheme '\(rawScheme)' (ws, wss, tcp, tls, udp)")
    }
    var rest = Substring(string[sep.upperBound...])
    var query = ""
    if let q = rest.firstIndex(of: "?") {
      query = String(rest[rest.index(after: q)...])
      rest = rest[..<q]
    }
    if let hash = query.firstIndex(of: "#") { query = String(query[..<hash]) }
    var path = "/"
    if let slash = rest.firstIndex(of: "/") {
      path = String(rest[slash...])
      rest = rest[..<slash]
    }
    var host = String(rest)
    var port = scheme.defaultPort
    if host.hasPrefix("[") {
      guard let close = host.firstIndex(of: "]") else { throw .invalidURL("bad IPv6 literal in '\(string)'") }
      let after = host[host.index(after: close)...]
      if after.hasPrefix(":") {
        guard let p = Int(after.dropFirst()), (1...65535).contains(p) else { throw .invalidURL("bad port in '\(string)'") }
        port = p
      } else if !after.isEmpty {
        throw .invalidURL("bad host in '\(string)'")
      }
      host = String(host[host.index(after: host.startIndex)..<close])
    } else if let colon = host.lastIndex(of: ":") {
      guard let p = Int(host[host.index(after: colon)...]), (1...65535).contains(p) else {
        throw .invalidURL("bad port in '\(string)'")
      }
      port = p
      host = String(host[..<colon])
    }
    guard !host.isEmpty else { throw .invalidURL("no host in '\(string)'") }
    self.scheme = scheme
    self.host = host
    self.port = port
    self.path = path
    self.query = query
  }

  /// The room named by a `/rooms/NAME` path, if any.
  public var roomInPath: String? {
    guard path.hasPrefix("/rooms/") else { return nil }
    let name = path.dropFirst("/rooms/".count).prefix { $0 != "/" }
    return name.isEmpty ? nil : name.removingURLPercentEncoding()
  }

  /// `host` with brackets for IPv6, and the port.
  var authority: String {
    (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
  }

  public var description: String {
    "\(scheme.rawValue)://\(authority)" + (scheme == .ws || scheme == .wss ? path + (query.isEmpty ? "" : "?" + query) : "")
  }

  /// The WebSocket URL to open: `room` (if any) as `/rooms/ROOM`, then the query with
  /// `name`, `since` and `epoch` replaced.
  func webSocketURL(room: String?, name: String, since: UInt64?, epoch: String?) -> String {
    let target = room.map { "/rooms/" + Self.percentEncode($0) } ?? path
    var items = query.split(separator: "&").filter { item in
      let key = item.prefix { $0 != "=" }
      return key != "name" && key != "since" && key != "epoch"
    }.map(String.init)
    items.append("name=" + Self.percentEncode(name))
    if let since { items.append("since=\(since)") }
    if let epoch { items.append("epoch=" + Self.percentEncode(epoch)) }
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
