/// An error found while parsing HTTP/1.1, carrying the status code a server answers it with.
///
/// Cases are static members over a private code (the "open enum" style), so new ones can be
/// added without breaking users. Two errors are equal when they are the same case; the
/// `message` may carry extra detail (such as the limit that was exceeded).
///
/// | case | status |
/// |---|---|
/// | ``malformedRequestLine``, ``malformedStatusLine``, ``malformedHeader``, ``invalidContentLength`` | 400 |
/// | ``bodyTooLarge`` | 413 |
/// | ``startLineTooLong`` | 414 |
/// | ``headersTooLarge``, ``tooManyHeaders`` | 431 |
/// | ``unsupportedTransferEncoding`` | 501 |
/// | ``unsupportedVersion`` | 505 |
public struct HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
  private enum Code: Sendable, Hashable {
    case malformedRequestLine
    case malformedStatusLine
    case malformedHeader
    case invalidContentLength
    case bodyTooLarge
    case startLineTooLong
    case headersTooLarge
    case tooManyHeaders
    case unsupportedTransferEncoding
    case unsupportedVersion
  }

  private let code: Code
  /// A short human-readable explanation, suitable for a response body or a log line.
  public let message: String

  private init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  /// The HTTP status code a server should answer this error with.
  public var status: Int {
    switch code {
    case .malformedRequestLine, .malformedStatusLine, .malformedHeader, .invalidContentLength: 400
    case .bodyTooLarge: 413
    case .startLineTooLong: 414
    case .headersTooLarge, .tooManyHeaders: 431
    case .unsupportedTransferEncoding: 501
    case .unsupportedVersion: 505
    }
  }

  /// `"<status> <reason>: <message>"`, e.g. `400 Bad Request: malformed header line`.
  public var description: String {
    "\(status) \(HTTPResponse.reasonPhrase(for: status)): \(message)"
  }

  /// The request line is not `METHOD SP target SP HTTP/x.y` (bad method token, missing or
  /// malformed version, control characters in the target, …). Status 400.
  public static let malformedRequestLine = HTTPError(.malformedRequestLine, "malformed request line")
  /// The status line is not `HTTP/x.y SP code SP reason`. Status 400.
  public static let malformedStatusLine = HTTPError(.malformedStatusLine, "malformed status line")
  /// A header line has no colon, whitespace before the colon, an invalid name, control
  /// characters in its value, or is an obsolete folded continuation line. Status 400.
  public static let malformedHeader = HTTPError(.malformedHeader, "malformed header line")
  /// `Content-Length` is not a decimal number, or several differing values were sent. Status 400.
  public static let invalidContentLength = HTTPError(.invalidContentLength, "invalid Content-Length")
  /// The declared body is larger than ``HTTPLimits/maxBodySize``. Status 413.
  public static let bodyTooLarge = HTTPError(.bodyTooLarge, "body too large")
  /// The request line (or status line) is longer than ``HTTPLimits/maxStartLineLength``. Status 414.
  public static let startLineTooLong = HTTPError(.startLineTooLong, "request line too long")
  /// The header section is larger than ``HTTPLimits/maxHeaderBytes``. Status 431.
  public static let headersTooLarge = HTTPError(.headersTooLarge, "header section too large")
  /// More header lines than ``HTTPLimits/maxHeaderCount``. Status 431.
  public static let tooManyHeaders = HTTPError(.tooManyHeaders, "too many header fields")
  /// The request uses `Transfer-Encoding` (chunked request bodies are not supported). Status 501.
  public static let unsupportedTransferEncoding = HTTPError(
    .unsupportedTransferEncoding, "Transfer-Encoding is not supported; send Content-Length")
  /// A well-formed version other than HTTP/1.0 or HTTP/1.1. Status 505.
  public static let unsupportedVersion = HTTPError(.unsupportedVersion, "HTTP version not supported")

  /// The same error with a more specific message.
  func with(message: String) -> HTTPError { HTTPError(code, message) }

  /// Errors are equal when they are the same case, whatever their messages.
  public static func == (lhs: HTTPError, rhs: HTTPError) -> Bool { lhs.code == rhs.code }

  /// Hashes the case only, consistent with `==`.
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
