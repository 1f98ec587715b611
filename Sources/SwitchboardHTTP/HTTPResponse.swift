/// An HTTP/1.1 response to write: status, headers and a body held in memory.
///
/// ``encode()`` is deterministic (no `Date` header) and always states the body length, so a
/// keep-alive client knows where the response ends.
public struct HTTPResponse: Sendable, Hashable {
  /// The status code.
  public var status: Int
  /// The reason phrase; defaults to the standard one for ``status``.
  public var reason: String
  /// The protocol version written in the status line.
  public var version: HTTPVersion
  /// Header fields written in order. A `Content-Length` here is ignored: ``encode()``
  /// writes its own from ``body``.
  public var headers: HTTPHeaders
  /// The body bytes.
  public var body: [UInt8]

  /// Creates a response.
  /// - Parameters:
  ///   - status: the status code.
  ///   - reason: the reason phrase; `nil` takes it from ``reasonPhrase(for:)``.
  ///   - version: defaults to HTTP/1.1.
  ///   - headers: header fields, in order.
  ///   - body: the body bytes.
  public init(
    status: Int, reason: String? = nil, version: HTTPVersion = .http1_1,
    headers: HTTPHeaders = [:], body: [UInt8] = []
  ) {
    self.status = status
    self.reason = reason ?? Self.reasonPhrase(for: status)
    self.version = version
    self.headers = headers
    self.body = body
  }

  /// Whether a response with this status never has a body (1xx, 204, 304), and so gets no
  /// `Content-Length`.
  public var hasNoBody: Bool { (100..<200).contains(status) || status == 204 || status == 304 }

  /// The response as wire bytes: status line, headers, `Content-Length` (except for
  /// 1xx/204/304, which also drop the body), the empty line and the body. Control
  /// characters in header values are replaced by spaces so a value cannot split the response.
  public func encode() -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(96 + body.count)
    out.append(contentsOf: "\(version) \(status) \(Self.sanitized(reason))\r\n".utf8)
    var headers = headers
    headers.remove(name: "Content-Length")
    Self.append(headers, to: &out)
    if !hasNoBody {
      out.append(contentsOf: "Content-Length: \(body.count)\r\n\r\n".utf8)
      out.append(contentsOf: body)
    } else {
      out.append(contentsOf: "\r\n".utf8)
    }
    return out
  }

  /// A `text/plain; charset=utf-8` response.
  public static func text(_ status: Int, _ body: String) -> HTTPResponse {
    HTTPResponse(
      status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(body.utf8))
  }

  /// A `text/html; charset=utf-8` response.
  public static func html(_ status: Int, _ body: String) -> HTTPResponse {
    HTTPResponse(
      status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: Array(body.utf8))
  }

  /// The answer to a parse error: its status, its message as plain text, and
  /// `Connection: close` (after a parse error the connection's byte stream cannot be trusted).
  public static func error(_ error: HTTPError) -> HTTPResponse {
    var response = text(error.status, error.message + "\n")
    response.headers.add(name: "Connection", value: "close")
    return response
  }

  /// The standard reason phrase for `status` (RFC 9110 and friends), or `""` if unknown.
  public static func reasonPhrase(for status: Int) -> String {
    switch status {
    case 100: "Continue"
    case 101: "Switching Protocols"
    case 200: "OK"
    case 201: "Created"
    case 202: "Accepted"
    case 204: "No Content"
    case 206: "Partial Content"
    case 301: "Moved Permanently"
    case 302: "Found"
    case 303: "See Other"
    case 304: "Not Modified"
    case 307: "Temporary Redirect"
    case 308: "Permanent Redirect"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 406: "Not Acceptable"
    case 408: "Request Timeout"
    case 409: "Conflict"
    case 410: "Gone"
    case 411: "Length Required"
    case 413: "Content Too Large"
    case 414: "URI Too Long"
    case 415: "Unsupported Media Type"
    case 421: "Misdirected Request"
    case 426: "Upgrade Required"
    case 429: "Too Many Requests"
    case 431: "Request Header Fields Too Large"
    case 500: "Internal Server Error"
    case 501: "Not Implemented"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 504: "Gateway Timeout"
    case 505: "HTTP Version Not Supported"
    default: ""
    }
  }

  /// Appends `Name: value\r\n` for every field, with control characters made spaces.
  static func append(_ headers: HTTPHeaders, to out: inout [UInt8]) {
    for (name, value) in headers {
      out.append(contentsOf: sanitized(name).utf8)
      out.append(contentsOf: ": ".utf8)
      out.append(contentsOf: sanitized(value).utf8)
      out.append(contentsOf: "\r\n".utf8)
    }
  }

  private static func sanitized(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return text }
    return String(decoding: text.utf8.map { $0 < 0x20 || $0 == 0x7F ? .space : $0 }, as: UTF8.self)
  }
}
