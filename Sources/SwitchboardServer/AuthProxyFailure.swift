import SwitchboardAuth

/// Why the auth proxy gave no usable answer: the connection is refused all the same (fail
/// closed) with ``answer``, and the failure is counted and logged.
enum AuthProxyFailure: Error, Sendable, Hashable, CustomStringConvertible {
  /// No answer within `--auth-proxy-timeout` (the session's own timer, which holds even if
  /// the request's end comes later).
  case timedOut
  /// The request failed: unreachable, timed out in the client, a status outside 2xx, an
  /// answer that is not HTTP or is too large, too many requests out.
  case request(OutboundHTTPError)
  /// The body was not a valid answer.
  case badAnswer(AuthProxyAnswerError)
  /// The outbound client could not be started (no thread for its loop).
  case unavailable

  /// What the refused member is told.
  static let answer = "authorization unavailable"

  var description: String {
    switch self {
    case .timedOut: "auth proxy timed out"
    case .request(let error): "auth proxy request failed: \(error)"
    case .badAnswer(let error): "auth proxy \(error)"
    case .unavailable: "auth proxy client not running"
    }
  }
}
