/// The status line and headers of an HTTP/1.x response, as read by ``HTTPResponseParser``.
public struct HTTPResponseHead: Sendable, Hashable {
  /// The protocol version.
  public var version: HTTPVersion
  /// The three-digit status code.
  public var status: Int
  /// The reason phrase as sent (may be empty).
  public var reason: String
  /// The header fields, in order.
  public var headers: HTTPHeaders

  /// Creates a response head.
  public init(version: HTTPVersion = .http1_1, status: Int, reason: String, headers: HTTPHeaders = [:]) {
    self.version = version
    self.status = status
    self.reason = reason
    self.headers = headers
  }
}
