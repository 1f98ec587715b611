/// The status code of a WebSocket close frame (RFC 6455 §7.4 and the IANA "WebSocket
/// Close Code Number" registry), by name.
///
/// Match on the cases instead of numbers (`case .goingAway:`); any other number is
/// ``unknown(_:)``. Integer literals convert, so `close(code: 4000)` still reads as it
/// did, and ``code`` (or `UInt16(closeCode)`) gives the number back.
///
/// Not every code may be sent: ``noStatus``, ``abnormalClosure`` and
/// ``tlsHandshakeFailure`` only describe what happened locally, 1004 is reserved, and
/// numbers below 1000, 1016–2999 and 5000 and up are not used. ``isValidInCloseFrame``
/// says which codes a close frame may carry; 3000–3999 are registered for libraries and
/// frameworks, 4000–4999 are for applications to agree on privately.
public enum WebSocketCloseCode: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral {
  /// 1000: the purpose of the connection was fulfilled.
  case normalClosure
  /// 1001: the endpoint is going away (server shutdown, page navigated away).
  case goingAway
  /// 1002: the peer broke the protocol.
  case protocolError
  /// 1003: a data type the endpoint cannot accept (binary to a text-only endpoint).
  case unacceptableData
  /// 1005: the close frame had no status code. Never sent.
  case noStatus
  /// 1006: the connection ended without a close frame. Never sent.
  case abnormalClosure
  /// 1007: message data inconsistent with its type (a text message that is not UTF-8).
  case invalidFramePayloadData
  /// 1008: a message that violates the endpoint's policy.
  case policyViolation
  /// 1009: a message too big to process.
  case messageTooBig
  /// 1010: the client expected the server to negotiate an extension it did not.
  case missingExtension
  /// 1011: the server met an unexpected condition.
  case unexpectedServerError
  /// 1012: the service is restarting.
  case serviceRestart
  /// 1013: a temporary condition (overload); try again later.
  case tryAgainLater
  /// 1014: a gateway or proxy received an invalid response from upstream.
  case badGateway
  /// 1015: the TLS handshake failed. Never sent.
  case tlsHandshakeFailure
  /// Any other number: reserved, unassigned, or a library (3000–3999) or application
  /// (4000–4999) code. ``init(_:)`` never makes it for a number that has a name.
  case unknown(UInt16)

  /// The code for `code`: its named case, or ``unknown(_:)``.
  public init(_ code: UInt16) {
    switch code {
    case 1000: self = .normalClosure
    case 1001: self = .goingAway
    case 1002: self = .protocolError
    case 1003: self = .unacceptableData
    case 1005: self = .noStatus
    case 1006: self = .abnormalClosure
    case 1007: self = .invalidFramePayloadData
    case 1008: self = .policyViolation
    case 1009: self = .messageTooBig
    case 1010: self = .missingExtension
    case 1011: self = .unexpectedServerError
    case 1012: self = .serviceRestart
    case 1013: self = .tryAgainLater
    case 1014: self = .badGateway
    case 1015: self = .tlsHandshakeFailure
    default: self = .unknown(code)
    }
  }

  /// The code for an integer literal, as ``init(_:)``.
  public init(integerLiteral value: UInt16) {
    self.init(value)
  }

  /// The number on the wire.
  public var code: UInt16 {
    switch self {
    case .normalClosure: 1000
    case .goingAway: 1001
    case .protocolError: 1002
    case .unacceptableData: 1003
    case .noStatus: 1005
    case .abnormalClosure: 1006
    case .invalidFramePayloadData: 1007
    case .policyViolation: 1008
    case .messageTooBig: 1009
    case .missingExtension: 1010
    case .unexpectedServerError: 1011
    case .serviceRestart: 1012
    case .tryAgainLater: 1013
    case .badGateway: 1014
    case .tlsHandshakeFailure: 1015
    case .unknown(let code): code
    }
  }

  /// Whether a close frame may carry this code (RFC 6455 §7.4.1–7.4.2 and the IANA
  /// registry): 1000–1003, 1007–1014 and 3000–4999. A received close frame with any other
  /// code is a protocol error.
  public var isValidInCloseFrame: Bool {
    switch code {
    case 1000...1003, 1007...1014, 3000...4999: true
    default: false
    }
  }

  /// The number, so logs and messages read as before (`1001`).
  public var description: String { String(code) }

  /// Codes are equal when their numbers are, so `.unknown(1000) == .normalClosure`.
  public static func == (lhs: WebSocketCloseCode, rhs: WebSocketCloseCode) -> Bool {
    lhs.code == rhs.code
  }

  /// Hashes the number (consistent with ``==(_:_:)``).
  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
  }
}

extension UInt16 {
  /// The number of a WebSocket close code.
  public init(_ closeCode: WebSocketCloseCode) {
    self = closeCode.code
  }
}
