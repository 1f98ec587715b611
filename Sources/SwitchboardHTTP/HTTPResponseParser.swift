/// An incremental parser for HTTP/1.x response heads, for clients: the WebSocket client
/// reads the server's `101 Switching Protocols` with it.
///
/// Only the status line and headers are parsed; a body is not consumed. After a head, the
/// bytes that follow are available from ``HTTPMessageParser/takeRemainingBytes()`` (the
/// first WebSocket frames after a 101). Line endings, limits, error stickiness and
/// split-independence are as for ``HTTPRequestParser``; status-line errors are
/// ``HTTPError/malformedStatusLine``, ``HTTPError/startLineTooLong`` and
/// ``HTTPError/unsupportedVersion``.
public typealias HTTPResponseParser = HTTPMessageParser<HTTPResponseHead>

extension HTTPMessageParser where Message == HTTPResponseHead {
  /// Creates a response parser with an empty buffer (``HTTPLimits/maxBodySize`` is not used).
  public init(limits: HTTPLimits = .default) {
    self.init(limits: limits, grammar: HTTPResponseGrammar())
  }

  /// `HTTP-version SP 3DIGIT SP reason-phrase` (RFC 9112 §4); a missing reason (with or
  /// without its space) is accepted.
  static func parseStatusLine(_ line: ArraySlice<UInt8>) throws(HTTPError) -> (HTTPVersion, Int, String) {
    let malformed = HTTPError.malformedStatusLine
    guard let firstSpace = line.firstIndex(of: .space) else { throw malformed }
    let version = try HTTPHeadReader.parseVersion(line[line.startIndex..<firstSpace], malformed: malformed)
    let rest = line[(firstSpace + 1)...]
    let codeEnd = rest.firstIndex(of: .space) ?? rest.endIndex
    let code = rest[rest.startIndex..<codeEnd]
    guard code.count == 3, code.allSatisfy(\.isDigit) else { throw malformed }
    let reason = codeEnd < rest.endIndex ? rest[(codeEnd + 1)...] : []
    guard reason.allSatisfy(\.isFieldValueByte) else { throw malformed }
    let status = code.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    return (version, status, String(decoding: reason, as: UTF8.self))
  }
}

/// The response grammar: status line and headers; a body is left in the buffer.
struct HTTPResponseGrammar: HTTPMessageGrammar {
  private enum State: Sendable {
    case statusLine
    case headers(version: HTTPVersion, status: Int, reason: String)
  }
  private var state = State.statusLine

  mutating func reset() {
    state = .statusLine
  }

  mutating func step(
    _ reader: inout HTTPHeadReader, limits: HTTPLimits
  ) throws(HTTPError) -> HTTPResponseHead? {
    while true {
      switch state {
      case .statusLine:
        guard let line = try reader.nextStartLine("status line", limits: limits) else { return nil }
        let (version, status, reason) = try HTTPResponseParser.parseStatusLine(line)
        state = .headers(version: version, status: status, reason: reason)

      case .headers(let version, let status, let reason):
        guard let headers = try reader.readHeaders(limits: limits) else { return nil }
        state = .statusLine
        reader.beginMessage()
        return HTTPResponseHead(version: version, status: status, reason: reason, headers: headers)
      }
    }
  }
}
