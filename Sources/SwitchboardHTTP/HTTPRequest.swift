/// A complete request: its head and its body (empty when there is none).
public struct HTTPRequest: Sendable, Hashable {
  /// The request line and headers.
  public var head: HTTPRequestHead
  /// The body bytes, exactly `Content-Length` of them.
  public var body: [UInt8]

  /// Creates a request.
  public init(head: HTTPRequestHead, body: [UInt8] = []) {
    self.head = head
    self.body = body
  }
}
