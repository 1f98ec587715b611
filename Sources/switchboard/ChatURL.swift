/// A parsed `scheme://host:port/path` URL.
struct ChatURL {
  struct Invalid: Error, CustomStringConvertible { let description: String }
  let scheme: String
  let host: String
  let port: Int
  let path: String

  static let defaultPorts = ["tcp": 8080, "udp": 8081, "ws": 1337, "wss": 443, "tls": 8443]

  init(_ raw: String) throws {
    guard let sep = raw.range(of: "://") else {
      throw Invalid(description: "'\(raw)' is not a URL like tcp://host:8080")
    }
    scheme = raw[..<sep.lowerBound].lowercased()
    guard let defaultPort = Self.defaultPorts[scheme] else {
      throw Invalid(description: "unknown scheme '\(scheme)' (tcp, udp, ws, wss, tls)")
    }
    var rest = raw[sep.upperBound...]
    if let slash = rest.firstIndex(of: "/") {
      path = String(rest[slash...])
      rest = rest[..<slash]
    } else {
      path = "/"
    }
    var hostPart = String(rest)
    var portValue = defaultPort
    if hostPart.hasPrefix("[") {
      guard let close = hostPart.firstIndex(of: "]") else { throw Invalid(description: "bad IPv6 literal in '\(raw)'") }
      let after = hostPart[hostPart.index(after: close)...]
      if after.hasPrefix(":") {
        guard let p = Int(after.dropFirst()), (1...65535).contains(p) else { throw Invalid(description: "bad port in '\(raw)'") }
        portValue = p
      }
      hostPart = String(hostPart[hostPart.index(after: hostPart.startIndex)..<close])
    } else if let colon = hostPart.lastIndex(of: ":") {
      guard let p = Int(hostPart[hostPart.index(after: colon)...]), (1...65535).contains(p) else {
        throw Invalid(description: "bad port in '\(raw)'")
      }
      portValue = p
      hostPart = String(hostPart[..<colon])
    }
    guard !hostPart.isEmpty else { throw Invalid(description: "no host in '\(raw)'") }
    host = hostPart
    port = portValue
  }
}
