/// An incremental HTTP/1.1 request parser: a value type that eats bytes and produces
/// requests. It does no I/O.
///
/// ```swift
/// var parser = HTTPRequestParser()
/// parser.append(bytesFromSocket)
/// while let request = try parser.next() { … }
/// ```
///
/// - Keep-alive and pipelining: several requests may sit in the buffer; call ``HTTPMessageParser/next()``
///   until it returns `nil`.
/// - Line endings: CRLF or a bare LF. Empty lines before a request line are skipped.
/// - Bodies: `Content-Length` only. A request with `Transfer-Encoding` (chunked uploads)
///   is rejected with ``HTTPError/unsupportedTransferEncoding`` (501): nothing Switchboard
///   serves takes a streamed upload, and refusing it closes a request-smuggling door.
/// - `Host` is not required, so a request typed by hand into `nc` works.
/// - After an error the parser stays failed: every later ``HTTPMessageParser/next()`` throws
///   the same error. The caller answers with ``HTTPResponse/error(_:)`` and closes the
///   connection.
/// - Results do not depend on how the bytes were split across appends.
public typealias HTTPRequestParser = HTTPMessageParser<HTTPRequest>

extension HTTPMessageParser where Message == HTTPRequest {
  /// Creates a request parser with an empty buffer.
  /// - Parameter limits: size limits; the defaults are 8 KiB request line, 100 headers,
  ///   16 KiB of headers and a 1 MiB body.
  public init(limits: HTTPLimits = .default) {
    self.init(limits: limits, grammar: HTTPRequestGrammar())
  }

  /// `method SP request-target SP HTTP-version` with single spaces (RFC 9112 §3).
  static func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTPError) -> (String, String, HTTPVersion) {
    guard let firstSpace = line.firstIndex(of: .space) else {
      throw HTTPError.malformedRequestLine.with(message: "malformed request line: no request target")
    }
    let method = line[line.startIndex..<firstSpace]
    guard !method.isEmpty, method.allSatisfy(\.isTokenByte) else {
      throw HTTPError.malformedRequestLine.with(message: "malformed request line: invalid method")
    }
    let afterMethod = line[(firstSpace + 1)...]
    guard let secondSpace = afterMethod.firstIndex(of: .space) else {
      throw HTTPError.malformedRequestLine.with(message: "malformed request line: no HTTP version")
    }
    let target = afterMethod[afterMethod.startIndex..<secondSpace]
    // Visible ASCII, plus obs-text for clients that send raw UTF-8; never controls or spaces.
    guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
      throw HTTPError.malformedRequestLine.with(message: "malformed request line: invalid target")
    }
    let version = try HTTPHeadReader.parseVersion(
      line[(secondSpace + 1)...],
      malformed: HTTPError.malformedRequestLine.with(message: "malformed request line: invalid HTTP version"))
    return (String(decoding: method, as: UTF8.self), String(decoding: target, as: UTF8.self), version)
  }

  /// The body length from `Content-Length`; 0 when absent. Repeated or comma-separated
  /// values must all be the same decimal number (RFC 9110 §8.6).
  static func contentLength(_ headers: HTTPHeaders) throws(HTTPError) -> Int {
    var length: Int?
    for value in headers.values("Content-Length") {
      for item in value.split(separator: ",", omittingEmptySubsequences: false) {
        let digits = item.trimmingSpacesAndTabs()
        // 18 digits cannot overflow Int64; anything that long is over any limit anyway.
        guard !digits.isEmpty, digits.utf8.count <= 18, digits.utf8.allSatisfy(\.isDigit),
          let parsed = Int(digits), length == nil || length == parsed
        else { throw HTTPError.invalidContentLength }
        length = parsed
      }
    }
    return length ?? 0
  }
}

/// The request grammar: request line, headers, a `Content-Length` body.
struct HTTPRequestGrammar: HTTPMessageGrammar {
  private enum State: Sendable {
    case requestLine
    case headers(method: String, target: String, version: HTTPVersion)
    case body(HTTPRequestHead, length: Int)
  }
  private var state = State.requestLine

  mutating func reset() {
    state = .requestLine
  }

  mutating func step(_ reader: inout HTTPHeadReader, limits: HTTPLimits) throws(HTTPError) -> HTTPRequest? {
    while true {
      switch state {
      case .requestLine:
        guard let line = try reader.nextStartLine("request line", limits: limits) else { return nil }
        let (method, target, version) = try HTTPRequestParser.parseRequestLine(line)
        state = .headers(method: method, target: target, version: version)

      case .headers(let method, let target, let version):
        guard let headers = try reader.readHeaders(limits: limits) else { return nil }
        let head = HTTPRequestHead(method: method, target: target, version: version, headers: headers)
        if headers["Transfer-Encoding"] != nil { throw HTTPError.unsupportedTransferEncoding }
        let length = try HTTPRequestParser.contentLength(headers)
        guard length <= limits.maxBodySize else {
          throw HTTPError.bodyTooLarge.with(
            message: "body of \(length) bytes is over the \(limits.maxBodySize) byte limit")
        }
        if length == 0 {
          state = .requestLine
          reader.beginMessage()
          return HTTPRequest(head: head)
        }
        state = .body(head, length: length)

      case .body(let head, let length):
        guard let body = reader.take(length) else { return nil }
        state = .requestLine
        reader.beginMessage()
        return HTTPRequest(head: head, body: body)
      }
    }
  }
}
