import SwitchboardIO
import SwitchboardTLS
import SwitchboardWebSocket

/// Why a ``WebSocketClient`` operation failed.
///
/// Open-enum style: compare with the static members (`error == .handshakeRejected`
/// compares the kind only, ignoring the details), so kinds can be added later without
/// breaking users. The details are in ``status``, ``closeCode``, ``ioError``,
/// ``tlsError`` and ``message``.
public struct WebSocketClientError: Error, Sendable, CustomStringConvertible {
  private enum Code: Sendable, Hashable {
    case invalidURL
    case unsupportedScheme
    case connectFailed
    case timeout
    case handshakeRejected
    case handshakeInvalid
    case closed
    case protocolError
    case cancelled
    case tlsFailed
  }

  private let code: Code
  /// A human-readable explanation.
  public let message: String
  /// The HTTP status of a ``handshakeRejected`` response.
  public let status: Int?
  /// The close code of a ``protocolError`` or, for ``closed``, the code the connection
  /// closed with when known.
  public let closeCode: WebSocketCloseCode?
  /// The system error behind a ``connectFailed``, when there is one.
  public let ioError: IOError?
  /// The body of a ``handshakeRejected`` response (at most 1 KiB, as text): the server's
  /// reason, such as `invalid room name (1-64 letters, digits, - _ .)`; empty when it sent none.
  public let body: String
  /// The TLS error behind a ``tlsFailed``: compare its kind
  /// (`.certificateVerifyFailed`, `.pinMismatch`, …) and read OpenSSL's ``TLSError/reason``.
  public let tlsError: TLSError?

  private init(
    _ code: Code, _ message: String, status: Int? = nil, closeCode: WebSocketCloseCode? = nil,
    ioError: IOError? = nil,
    tlsError: TLSError? = nil, body: String = ""
  ) {
    self.body = body
    self.code = code
    self.message = message
    self.status = status
    self.closeCode = closeCode
    self.ioError = ioError
    self.tlsError = tlsError
  }

  /// A readable description: the kind and the details.
  public var description: String { "WebSocketClientError.\(code): \(message)" }

  /// The URL could not be parsed (not `ws://host[:port][/path][?query]`).
  public static let invalidURL = WebSocketClientError(.invalidURL, "invalid URL")
  /// The URL's scheme is neither `ws` nor `wss`.
  public static let unsupportedScheme = WebSocketClientError(.unsupportedScheme, "unsupported scheme")
  /// The host did not resolve or the TCP connection could not be opened (refused,
  /// unreachable, …); ``ioError`` has the system error.
  public static let connectFailed = WebSocketClientError(.connectFailed, "connect failed")
  /// The TCP connection and opening handshake did not finish within
  /// ``WebSocketClient/Configuration/connectTimeout``.
  public static let timeout = WebSocketClientError(.timeout, "timed out")
  /// The server answered the upgrade request with a status other than 101; ``status``
  /// has it.
  public static let handshakeRejected = WebSocketClientError(.handshakeRejected, "handshake rejected")
  /// The server's response was not a valid WebSocket handshake (malformed HTTP, wrong
  /// `Sec-WebSocket-Accept`, an extension or subprotocol that was not offered, or the
  /// connection closed before the response was complete).
  public static let handshakeInvalid = WebSocketClientError(.handshakeInvalid, "invalid handshake")
  /// The connection is closing or closed: nothing more can be sent.
  public static let closed = WebSocketClientError(.closed, "connection closed")
  /// The operation would break the protocol (for example a ping payload over 125
  /// bytes); ``closeCode`` is the matching close code.
  public static let protocolError = WebSocketClientError(.protocolError, "protocol error", closeCode: .protocolError)
  /// The task was cancelled while connecting.
  public static let cancelled = WebSocketClientError(.cancelled, "cancelled")
  /// A `wss://` connection failed in TLS: the server's certificate did not verify
  /// (``message`` carries OpenSSL's reason, such as `"self-signed certificate"` or
  /// `"hostname mismatch"`), its key matched no pin, the handshake failed, or the TLS
  /// configuration was unusable. ``tlsError`` has the ``TLSError``.
  public static let tlsFailed = WebSocketClientError(.tlsFailed, "TLS failed")

  /// A failed connection attempt carrying the system error.
  public static func connectFailed(_ error: IOError) -> WebSocketClientError {
    .init(.connectFailed, error.description, ioError: error)
  }
  /// A TLS failure, described by `error` (its kind and OpenSSL's reason).
  public static func tlsFailed(_ error: TLSError) -> WebSocketClientError {
    .init(.tlsFailed, error.description, tlsError: error)
  }
  /// A rejected handshake with the server's status and the body it sent (its reason).
  public static func handshakeRejected(status: Int, reason: String = "", body: String = "")
    -> WebSocketClientError
  {
    let text = body.trimmingWhitespace
    let answer = "server answered \(status) \(reason)"
    return .init(.handshakeRejected, text.isEmpty ? answer : "\(answer): \(text)", status: status, body: text)
  }
  /// An invalid handshake response, with what was wrong.
  public static func handshakeInvalid(_ reason: String) -> WebSocketClientError {
    .init(.handshakeInvalid, reason)
  }
  /// A closed connection, with the close code it ended with when known.
  public static func closed(code: WebSocketCloseCode?, reason: String = "connection closed") -> WebSocketClientError {
    .init(.closed, reason, closeCode: code)
  }
  /// A protocol violation with its close code.
  public static func protocolError(code: WebSocketCloseCode, _ message: String) -> WebSocketClientError {
    .init(.protocolError, message, closeCode: code)
  }
  /// A timeout with what timed out.
  public static func timeout(_ message: String) -> WebSocketClientError { .init(.timeout, message) }
  /// An invalid URL with what was wrong.
  public static func invalidURL(_ message: String) -> WebSocketClientError { .init(.invalidURL, message) }
  /// An unsupported scheme, named.
  public static func unsupportedScheme(_ scheme: String) -> WebSocketClientError {
    .init(.unsupportedScheme, "unsupported scheme '\(scheme)'")
  }
}

extension WebSocketClientError: Equatable {
  /// Two errors are equal when they are of the same kind; details are ignored.
  public static func == (lhs: WebSocketClientError, rhs: WebSocketClientError) -> Bool {
    lhs.code == rhs.code
  }
}
