/// Why a ``ChatClient`` operation failed.
///
/// Open-enum style: compare with the static members (`error == .queueFull`); the
/// ``description`` carries the detail (the errno, the host, the server's words).
public struct ChatClientError: Error, Sendable, Hashable, CustomStringConvertible {
  private enum Code: Hashable, Sendable {
    case invalidURL
    case unsupportedScheme
    case connectFailed
    case timeout
    case queueFull
    case closed
    case heartbeatTimeout
    case notStored
    case gaveUp
    case alreadyRunning
    case serverError
    case serviceNotFound
    case localNetworkDenied
    case unsupported
    case refused
    case invalidArgument
    case tokenUnavailable
  }

  private let code: Code
  /// What happened, for people.
  public let description: String
  /// For ``refused``: what the server refused and its own words; `nil` for every other kind.
  public let refusal: ChatRefusal?

  private init(_ code: Code, _ description: String, refusal: ChatRefusal? = nil) {
    self.code = code
    self.description = description
    self.refusal = refusal
  }

  /// The URL could not be parsed.
  public static let invalidURL = ChatClientError(.invalidURL, "invalid URL")
  /// The URL's scheme is not one the client speaks.
  public static let unsupportedScheme = ChatClientError(.unsupportedScheme, "unsupported scheme")
  /// Resolving the host, the TCP/TLS connect or the WebSocket handshake failed.
  public static let connectFailed = ChatClientError(.connectFailed, "connect failed")
  /// Connecting took longer than ``ChatClient/Configuration/connectTimeout``.
  public static let timeout = ChatClientError(.timeout, "timed out")
  /// ``ChatClient/send(_:)`` was called with ``ChatClient/Configuration/maxQueuedMessages``
  /// messages already waiting.
  public static let queueFull = ChatClientError(.queueFull, "send queue full")
  /// The client is closed (or not running): nothing more can be sent.
  public static let closed = ChatClientError(.closed, "client closed")
  /// The peer did not answer a heartbeat probe within ``ChatClient/Heartbeat/timeout``.
  public static let heartbeatTimeout = ChatClientError(.heartbeatTimeout, "heartbeat timed out")
  /// The server said it could not store a message (`not_stored`).
  public static let notStored = ChatClientError(.notStored, "message not stored")
  /// ``ReconnectPolicy/maxAttempts`` reconnects failed; the client stopped.
  public static let gaveUp = ChatClientError(.gaveUp, "gave up reconnecting")
  /// ``ChatClient/run(isolation:_:)`` was called while the client was already running.
  public static let alreadyRunning = ChatClientError(.alreadyRunning, "already running")

  /// The server answered with an error meant for this client (a `! …` line, or a
  /// WebSocket `error` frame).
  public static let serverError = ChatClientError(.serverError, "server error")

  /// A DNS-SD service endpoint's instance did not answer within the resolver's timeout
  /// (``DNSSDResolver/timeout``): it is not running, or not reachable by multicast from here.
  public static let serviceNotFound = ChatClientError(.serviceNotFound, "service not found")

  /// The system refused the app access to the local network, so a service endpoint
  /// (``ChatService``) cannot be browsed for (`kDNSServiceErr_PolicyDenied`, iOS's and macOS's
  /// Local Network privacy). Retrying does not help until the user allows it; the description
  /// says where.
  public static let localNetworkDenied = ChatClientError(.localNetworkDenied, localNetworkAdvice)

  /// What a user must do when local network access is denied (the end of every
  /// ``localNetworkDenied`` description).
  static let localNetworkAdvice =
    "local network access denied: allow it in Settings ▸ Privacy & Security ▸ Local Network "
    + "(System Settings on a Mac); the app's Info.plist must have NSLocalNetworkUsageDescription "
    + "and list the service type in NSBonjourServices"

  static func serviceNotFound(_ detail: String) -> ChatClientError { .init(.serviceNotFound, detail) }
  static func localNetworkDenied(_ detail: String) -> ChatClientError {
    .init(.localNetworkDenied, "\(detail): \(localNetworkAdvice)")
  }
  /// The server does not support what was asked: an older server answered a `who` or `rooms`
  /// frame (``ChatClient/requestMembers()``, ``ChatClient/requestRooms()``) with `unknown_type`.
  public static let unsupported = ChatClientError(.unsupported, "not supported by the server")

  /// The server refused this client in a way that connecting again cannot change (a bad
  /// room or name, no token or a refused one, a room outside the token, a `4xx` answer to the
  /// WebSocket upgrade): the client stopped without retrying. ``refusal`` says what was refused
  /// and carries the server's reason, which is also the ``description``. Compare with
  /// `error == .refused`.
  public static let refused = ChatClientError(.refused, "refused by the server")

  /// ``refused`` carrying `refusal` (its reason is the description).
  public static func refused(_ refusal: ChatRefusal) -> ChatClientError {
    .init(.refused, refusal.reason, refusal: refusal)
  }

  /// The configuration's token provider (``ChatClient/Configuration/tokenProvider``) threw:
  /// on connect the attempt counts as failed (then a retry, as for any failed connect); on
  /// a refresh the connection stays until its token runs out. The description has the
  /// provider's error.
  public static let tokenUnavailable = ChatClientError(.tokenUnavailable, "token provider failed")
  static func tokenUnavailable(_ detail: String) -> ChatClientError { .init(.tokenUnavailable, detail) }

  /// A value passed to a ``ChatClient`` method is out of its range (a history request's
  /// limit below 1, say); nothing was sent.
  public static let invalidArgument = ChatClientError(.invalidArgument, "invalid argument")
  /// ``invalidArgument`` with `detail` as its description.
  static func invalidArgument(_ detail: String) -> ChatClientError { .init(.invalidArgument, detail) }
  static func unsupported(_ detail: String) -> ChatClientError { .init(.unsupported, detail) }
  static func serverError(_ detail: String) -> ChatClientError { .init(.serverError, detail) }
  /// ``invalidURL`` with `detail` as its description (a transport given a URL it cannot parse).
  public static func invalidURL(_ detail: String) -> ChatClientError { .init(.invalidURL, detail) }
  /// ``unsupportedScheme`` with `detail` (a ``ChatTransport`` asked for a scheme it does not carry).
  public static func unsupportedScheme(_ detail: String) -> ChatClientError { .init(.unsupportedScheme, detail) }
  /// ``connectFailed`` with `detail` (a ``ChatTransport`` that could not reach the server:
  /// name resolution, the connect, a TLS or WebSocket handshake).
  public static func connectFailed(_ detail: String) -> ChatClientError { .init(.connectFailed, detail) }
  /// ``timeout`` with `detail` (a ``ChatTransport`` past ``ChatTransportRequest/connectTimeout``).
  public static func timeout(_ detail: String) -> ChatClientError { .init(.timeout, detail) }
  static func queueFull(_ detail: String) -> ChatClientError { .init(.queueFull, detail) }
  /// ``closed`` with `detail` (a ``ChatTransportConnection`` that can no longer send).
  public static func closed(_ detail: String) -> ChatClientError { .init(.closed, detail) }
  static func heartbeatTimeout(_ detail: String) -> ChatClientError { .init(.heartbeatTimeout, detail) }
  static func notStored(_ detail: String) -> ChatClientError { .init(.notStored, detail) }
  static func gaveUp(_ detail: String) -> ChatClientError { .init(.gaveUp, detail) }

  /// Errors are equal when they are the same kind, whatever the detail.
  public static func == (lhs: ChatClientError, rhs: ChatClientError) -> Bool { lhs.code == rhs.code }
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
