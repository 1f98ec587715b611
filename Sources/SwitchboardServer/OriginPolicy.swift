/// Which web pages may open a WebSocket to the server: the check on the `Origin` header a
/// browser sends with every upgrade (docs/SECURITY.md, "Origin policy").
///
/// The rule, in order:
/// 1. No `Origin` header: allowed (browsers always send one; command-line clients, the client
///    library and scripts do not).
/// 2. `null` (a sandboxed frame, a `file:` page, some redirects): refused, unless `null` is
///    in ``allowed``.
/// 3. `*` in ``allowed``: every other origin is allowed.
/// 4. The same host and port as the request's `Host` header: allowed. This is the page the
///    server serves itself (`http://HOST:PORT/`), whatever else is configured.
/// 5. An origin in ``allowed`` (compared as scheme, host and port, case-insensitively, with
///    the scheme's default port filled in): allowed.
/// 6. Anything else: refused (the server answers 403).
///
/// A pure value: no sockets, no clock.
public struct OriginPolicy: Sendable, Equatable {
  /// The origins allowed besides the server's own, normalised (`scheme://host:port`), plus
  /// `*` and `null` when given.
  public private(set) var allowed: [String]

  /// What the check says.
  public enum Verdict: Sendable, Equatable {
    /// The upgrade may go ahead.
    case allowed
    /// Refused; the text says why (the 403 body).
    case refused(String)
  }

  /// A policy allowing `origins` (each `*`, `null` or `scheme://host[:port]`) besides the
  /// server's own. Entries that are none of those are ignored: check them first with
  /// ``normalize(_:)``.
  public init(allowing origins: [String] = []) {
    allowed = origins.compactMap(Self.normalize)
  }

  /// An origin as compared: `*`, `null`, or `scheme://host:port` in lower case with the
  /// default port of `http`/`ws` (80) or `https`/`wss` (443) filled in; `nil` when `text` is
  /// none of those (a path, a user, an unknown scheme without a port, an empty host).
  public static func normalize(_ text: String) -> String? {
    let t = text.lowercased()
    if t == "*" || t == "null" { return t }
    guard let (scheme, host, port) = parse(t) else { return nil }
    return "\(scheme)://\(host):\(port)"
  }

  /// Checks the `Origin` header of an upgrade whose `Host` header is `host`.
  public func check(origin: String?, host: String?) -> Verdict {
    guard let origin else { return .allowed }
    let t = origin.lowercased()
    let shown = String(origin.prefix(200))
    if t == "null" {
      return allowed.contains("null") ? .allowed : .refused("origin null is not allowed")
    }
    if allowed.contains("*") { return .allowed }
    guard let (scheme, originHost, originPort) = Self.parse(t) else {
      return .refused("origin \(shown) is not a valid origin")
    }
    if let host, let (requestHost, requestPort) = Self.splitHostPort(host.lowercased(), scheme: scheme),
      requestHost == originHost, requestPort == originPort
    {
      return .allowed
    }
    if allowed.contains("\(scheme)://\(originHost):\(originPort)") { return .allowed }
    return .refused("origin \(shown) is not allowed (the server allows its own pages and --allow-origin)")
  }

  /// `scheme://host[:port]` → its parts, the port defaulted by scheme.
  private static func parse(_ t: String) -> (String, String, Int)? {
    guard let r = t.range(of: "://") else { return nil }
    let scheme = String(t[..<r.lowerBound])
    guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else {
      return nil
    }
    let rest = String(t[r.upperBound...])
    guard !rest.contains("/"), !rest.contains("@"), !rest.contains("?"), !rest.contains("#") else { return nil }
    guard let (host, port) = splitHostPort(rest, scheme: scheme) else { return nil }
    return (scheme, host, port)
  }

  /// `host[:port]` (a bracketed IPv6 address included) → host and port, the port defaulted
  /// by `scheme`; `nil` when empty, a bad port, or no default port for the scheme.
  private static func splitHostPort(_ text: String, scheme: String) -> (String, Int)? {
    var host = text
    var portText: Substring? = nil
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]") else { return nil }
      host = String(text[...close])
      let after = text[text.index(after: close)...]
      if !after.isEmpty {
        guard after.first == ":" else { return nil }
        portText = after.dropFirst()
      }
    } else if let colon = text.lastIndex(of: ":") {
      host = String(text[..<colon])
      portText = text[text.index(after: colon)...]
    }
    guard !host.isEmpty else { return nil }
    if let portText {
      guard let port = Int(portText), (1...65535).contains(port) else { return nil }
      return (host, port)
    }
    switch scheme {
    case "http", "ws": return (host, 80)
    case "https", "wss": return (host, 443)
    default: return nil
    }
  }
}
