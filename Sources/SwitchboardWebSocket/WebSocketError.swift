/// An error in the WebSocket protocol, carrying the close code to send the peer.
///
/// Open-enum style: compare with the static members (`error == .protocolError`
/// compares the kind only, ignoring the message) so kinds can be added later without
/// breaking users.
public struct WebSocketError: Error, Sendable, CustomStringConvertible {
  private enum Code: Sendable {
    case protocolError
    case invalidUTF8
    case policy
    case messageTooBig
    case `internal`
    case handshakeFailed
  }

  private let code: Code
  /// A human-readable explanation, suitable as a close reason (kept under 123 bytes).
  public let message: String

  private init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  /// The close code (RFC 6455 section 7.4.1) that this error maps to.
  public var closeCode: WebSocketCloseCode {
    switch code {
    case .protocolError, .handshakeFailed: .protocolError
    case .invalidUTF8: .invalidFramePayloadData
    case .policy: .policyViolation
    case .messageTooBig: .messageTooBig
    case .internal: .unexpectedServerError
    }
  }

  /// A readable description: the close code and the message.
  public var description: String { "WebSocketError(\(closeCode)): \(message)" }

  /// A protocol violation (close code 1002, ``WebSocketCloseCode/protocolError``).
  public static let protocolError = WebSocketError(.protocolError, "protocol error")
  /// A text message or close reason that is not valid UTF-8 (close code 1007,
  /// ``WebSocketCloseCode/invalidFramePayloadData``).
  public static let invalidUTF8 = WebSocketError(.invalidUTF8, "invalid UTF-8")
  /// A policy violation (close code 1008, ``WebSocketCloseCode/policyViolation``).
  public static let policy = WebSocketError(.policy, "policy violation")
  /// A frame or message over the configured limit (close code 1009,
  /// ``WebSocketCloseCode/messageTooBig``).
  public static let messageTooBig = WebSocketError(.messageTooBig, "message too big")
  /// An unexpected internal condition such as a compression failure (close code 1011,
  /// ``WebSocketCloseCode/unexpectedServerError``).
  public static let `internal` = WebSocketError(.internal, "internal error")

  /// The opening handshake failed (a client saw an invalid server response). There is
  /// no connection to close yet; ``closeCode`` is ``WebSocketCloseCode/protocolError`` for uniformity.
  public static let handshakeFailed = WebSocketError(.handshakeFailed, "handshake failed")

  /// A protocol violation (1002) with a specific message.
  public static func protocolError(_ message: String) -> WebSocketError { .init(.protocolError, message) }
  /// Invalid UTF-8 (1007) with a specific message.
  public static func invalidUTF8(_ message: String) -> WebSocketError { .init(.invalidUTF8, message) }
  /// A policy violation (1008) with a specific message.
  public static func policy(_ message: String) -> WebSocketError { .init(.policy, message) }
  /// A frame or message over the limit (1009) with a specific message.
  public static func messageTooBig(_ message: String) -> WebSocketError { .init(.messageTooBig, message) }
  /// A failed opening handshake with a specific message.
  public static func handshakeFailed(_ message: String) -> WebSocketError { .init(.handshakeFailed, message) }
  /// An internal error (1011) with a specific message.
  public static func `internal`(_ message: String) -> WebSocketError { .init(.internal, message) }
}

extension WebSocketError: Equatable {
  /// Two errors are equal when they are of the same kind; messages are ignored.
  public static func == (lhs: WebSocketError, rhs: WebSocketError) -> Bool { lhs.code == rhs.code }
}
