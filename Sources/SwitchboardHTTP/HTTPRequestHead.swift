/// The request line and headers of an HTTP/1.x request.
public struct HTTPRequestHead: Sendable, Hashable {
  /// The method token, case preserved (`GET`).
  public var method: String
  /// The request target exactly as sent (`/rooms/lobby?format=text`).
  public var target: String
  /// The protocol version.
  public var version: HTTPVersion
  /// The header fields, in order.
  public var headers: HTTPHeaders

  /// Creates a request head.
  public init(method: String, target: String, version: HTTPVersion = .http1_1, headers: HTTPHeaders = [:]) {
    self.method = method
    self.target = target
    self.version = version
    self.headers = headers
  }

  /// The target's path: everything before `?` (or `#`), with no percent-decoding applied.
  /// For an absolute-form target (`http://host/a?b`) the scheme and authority are dropped;
  /// an empty path is reported as `/`.
  ///
  /// The delimiters are found byte by byte, never as `Character`s: a character that joins
  /// the one after it (U+070F SYRIAC ABBREVIATION MARK is a grapheme "prepend") makes `x?`
  /// one `Character` that is not `?`, which hid the query inside the path (found by fuzz-url).
  public var path: String {
    var rest = Substring(target).utf8[...]
    if let colon = rest.firstIndex(of: UInt8(ascii: ":")), colon != rest.startIndex,
      Substring(rest[..<colon]).allSatisfy(\.isLetter), rest[colon...].starts(with: "://".utf8)
    {
      rest = rest[rest.index(colon, offsetBy: 3)...]
      rest = rest[(rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
        ?? rest.endIndex)...]
    }
    let end = rest.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? rest.endIndex
    let path = rest[..<end]
    return path.isEmpty ? "/" : String(decoding: path, as: UTF8.self)
  }

  /// The raw query string (between `?` and `#`), or `nil` when the target has none.
  public var rawQuery: String? {
    let bytes = target.utf8
    guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return nil }
    let rest = bytes[bytes.index(after: mark)...]
    return String(decoding: rest[..<(rest.firstIndex(of: UInt8(ascii: "#")) ?? rest.endIndex)], as: UTF8.self)
  }

  /// The query parameters, percent-decoded with `+` read as a space. A key without `=` maps
  /// to `""`; when a key repeats, the first value wins. Invalid escapes are kept literally
  /// and invalid UTF-8 is repaired.
  public var query: [String: String] {
    guard let raw = rawQuery else { return [:] }
    // The target's length is bounded by the head's limit already.
    return (try? HTTPForm(Array(raw.utf8), limits: .unbounded))?.fields ?? [:]
  }

  /// Whether the connection stays open after this request: HTTP/1.1 unless
  /// `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
  public var keepAlive: Bool {
    if headers.contains(token: "close", in: "Connection") { return false }
    if version >= .http1_1 { return true }
    return headers.contains(token: "keep-alive", in: "Connection")
  }

  /// Whether this is a WebSocket opening handshake (RFC 6455 §4.1): a `GET` over HTTP/1.1
  /// with `Connection` listing `upgrade` and `Upgrade` listing `websocket`. The
  /// `Sec-WebSocket-*` fields are left for the WebSocket module to check.
  public var isWebSocketUpgrade: Bool {
    method == "GET" && version >= .http1_1
      && headers.contains(token: "upgrade", in: "Connection")
      && headers.contains(token: "websocket", in: "Upgrade")
  }

  /// The request line and headers as wire bytes, ending with the empty line. Control
  /// characters in header values are replaced by spaces so a value cannot split the message.
  public func encode() -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(128)
    out.append(contentsOf: "\(method) \(target) \(version)\r\n".utf8)
    HTTPResponse.append(headers, to: &out)
    out.append(contentsOf: "\r\n".utf8)
    return out
  }
}

extension HTTPRequestHead: CustomStringConvertible {
  /// The request line followed by the headers.
  public var description: String { "\(method) \(target) \(version)\n\(headers)" }
}
