import SwitchboardHTTP

/// Where a Redis server is and how to log in: `redis://[user:password@]host[:port][/db]`,
/// or `rediss://…` for TLS.
///
/// `redis://:secret@host` (an empty user) logs in with the password only (`AUTH secret`, the
/// `default` user); `redis://alice:secret@host` as ACL user `alice`. User and password are
/// percent-decoded. The port defaults to 6379, the database to 0. An IPv6 host is written in
/// brackets (`redis://[::1]:6379`).
public struct RedisURL: Sendable, Hashable, CustomStringConvertible {
  /// `true` for `rediss://`.
  public var tls: Bool
  /// The host name or IP address (without brackets).
  public var host: String
  /// The TCP port.
  public var port: Int
  /// The ACL user; `nil` for password-only login (or none).
  public var user: String?
  /// The password; `nil` for no `AUTH`.
  public var password: String?
  /// The database `SELECT`ed after connecting.
  public var database: Int

  /// A URL from its parts.
  public init(
    host: String, port: Int = 6379, user: String? = nil, password: String? = nil, database: Int = 0,
    tls: Bool = false
  ) {
    self.host = host
    self.port = port
    self.user = user
    self.password = password
    self.database = database
    self.tls = tls
  }

  /// Parses `text`.
  /// - Throws: ``RedisError`` of kind ``RedisError/Kind/invalidURL`` for another scheme, a
  ///   missing host, a bad port or database number.
  public init(_ text: String) throws(RedisError) {
    var rest = Substring(text)
    if rest.hasPrefix("redis://") {
      tls = false
      rest = rest.dropFirst("redis://".count)
    } else if rest.hasPrefix("rediss://") {
      tls = true
      rest = rest.dropFirst("rediss://".count)
    } else {
      throw .invalidURL("\(text): the scheme must be redis:// or rediss://")
    }
    if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<query] }
    var path = Substring("")
    if let slash = rest.firstIndex(of: "/") {
      path = rest[rest.index(after: slash)...]
      rest = rest[..<slash]
    }
    user = nil
    password = nil
    if let at = rest.lastIndex(of: "@") {
      let info = rest[..<at]
      rest = rest[rest.index(after: at)...]
      if let colon = info.firstIndex(of: ":") {
        let name = info[..<colon].removingURLPercentEncoding()
        user = name.isEmpty ? nil : name
        password = info[info.index(after: colon)...].removingURLPercentEncoding()
      } else if !info.isEmpty {
        user = info.removingURLPercentEncoding()
      }
    }
    var hostPart = rest
    var portText: Substring?
    if hostPart.hasPrefix("[") {
      guard let close = hostPart.firstIndex(of: "]") else {
        throw .invalidURL("\(text): unclosed [ in the host")
      }
      let after = hostPart[hostPart.index(after: close)...]
      if after.hasPrefix(":") {
        portText = after.dropFirst()
      } else if !after.isEmpty {
        throw .invalidURL("\(text): unexpected text after the host")
      }
      hostPart = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
    } else if let colon = hostPart.lastIndex(of: ":") {
      portText = hostPart[hostPart.index(after: colon)...]
      hostPart = hostPart[..<colon]
    }
    guard !hostPart.isEmpty else { throw .invalidURL("\(text): no host") }
    host = String(hostPart)
    if let portText {
      guard let number = Int(portText), (1...65535).contains(number) else {
        throw .invalidURL("\(text): bad port \"\(portText)\"")
      }
      port = number
    } else {
      port = 6379
    }
    if path.isEmpty {
      database = 0
    } else {
      guard let number = Int(path), number >= 0 else {
        throw .invalidURL("\(text): bad database \"\(path)\"")
      }
      database = number
    }
  }

  /// The URL with the password shown as `***` (for logs).
  public var description: String {
    var text = tls ? "rediss://" : "redis://"
    if user != nil || password != nil {
      text += user ?? ""
      if password != nil { text += ":***" }
      text += "@"
    }
    text += host.contains(":") ? "[\(host)]" : host
    text += ":\(port)"
    if database != 0 { text += "/\(database)" }
    return text
  }
}
