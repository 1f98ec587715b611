import SwitchboardWebSocket
import SwitchboardWire

/// The server's final "no": a refusal that connecting again cannot change (a room or name the
/// server does not accept, a missing or refused token, a room the token does not allow, a path
/// the server does not serve). A ``ChatClient`` that meets one stops at once instead of
/// reconnecting: its last event is ``ChatClient/Event/error(_:)`` with
/// ``ChatClientError/refused``, whose ``ChatClientError/refusal`` is this, and sends waiting
/// fail with the same error.
///
/// Transient failures are not refusals and keep being retried: a refused or reset connect,
/// a timeout, a `5xx` (a `503` over capacity included), a server going away, a slow-consumer
/// or rate-limit close.
///
/// Which answers are refusals is decided here, in one place, from what the server sends on
/// each dialect (docs/PROTOCOLS.md, docs/SECURITY.md): see ``upgrade(status:body:)``,
/// ``close(code:reason:)``, ``line(_:room:)`` and, before anything is sent,
/// ``check(room:name:)``.
public struct ChatRefusal: Sendable, Hashable, CustomStringConvertible {
  /// What was refused.
  public enum Kind: Sendable, Hashable {
    /// The room name (not 1–64 letters, digits, `-`, `_`, `.`), or a room the server would not
    /// let the client into (`not allowed in room X`: outside its token).
    case room
    /// The name (one the server refuses because it would read as a notice, an error or
    /// another author's line).
    case name
    /// Authentication: no token where the server requires one, or the token was refused
    /// (expired, bad signature, wrong issuer or audience…). A new token is needed.
    case authentication
    /// The server refused the request for another reason that retrying cannot change
    /// (an HTTP `403` such as a foreign `Origin`, a `404` path, another `4xx`).
    case request
    /// The app's backend removed the user through the server API (`POST /api/disconnect`):
    /// a WebSocket close 4001 or a `* disconnected by the server: REASON` line. Final, so
    /// the client does not come straight back; an app that wants its user back connects
    /// again itself (docs/CLIENT.md).
    case disconnected
  }

  /// The WebSocket close code of a user removed by the server API (``Kind/disconnected``).
  public static let disconnectedCloseCode = WebSocketCloseCode(4001)

  /// The start of the line-dialect notice of a user removed by the server API.
  static let disconnectedLinePrefix = "* disconnected by the server: "

  /// What was refused.
  public var kind: Kind
  /// The server's own words, for people: `invalid room name (1-64 letters, digits, - _ .)`,
  /// `authentication required`, `token expired`, `not allowed in room ops`.
  public var reason: String
  /// The HTTP status of a refused WebSocket upgrade (`400`, `401`, `403`, `404`, …), else `nil`.
  public var status: Int?

  /// Creates a refusal.
  public init(kind: Kind, reason: String, status: Int? = nil) {
    self.kind = kind
    self.reason = reason
    self.status = status
  }

  /// The reason, as a person reads it.
  public var description: String { reason }

  // MARK: Classification (pure: no I/O)

  /// The room and name a client asks for, held to the rules the server applies
  /// (``RoomName/validate(_:)``, the hub's name rule) before connecting: a room or name the
  /// server would refuse is refused here, with the server's words, and nothing is sent. `nil`
  /// when both would be accepted (an empty name leaves the naming to the server).
  public static func check(room: String?, name: String) -> ChatRefusal? {
    if let room, RoomName.validate(room) == nil {
      return ChatRefusal(
        kind: .room, reason: "invalid room name \(room.debugDescription) (1-64 letters, digits, - _ .)")
    }
    if !name.trimmingWhitespace.isEmpty {
      guard let clean = LineDialect.cleanName(name, maxLength: 64) else {
        return ChatRefusal(kind: .name, reason: NameRefusal.empty.answer)
      }
      if let refusal = LineDialect.nameRefusal(clean) {
        return ChatRefusal(kind: .name, reason: refusal.answer)
      }
    }
    return nil
  }

  /// A WebSocket upgrade answered with `status` and `body`: a refusal for a `4xx` that asking
  /// again cannot change (`400` bad room or request, `401`, `403`, `404`, …); `nil` for what may
  /// pass (`408`, `429`, every `5xx`, a `503` over capacity among them).
  public static func upgrade(status: Int, body: String) -> ChatRefusal? {
    guard (400..<500).contains(status), status != 408, status != 429 else { return nil }
    let text = body.trimmingWhitespace
    let reason = text.isEmpty ? "the server answered \(status)" : text
    let kind: Kind
    switch status {
    case 401: kind = .authentication
    case 400 where text.hasPrefix("invalid room name"): kind = .room
    case 400 where text.contains("name"): kind = .name
    default: kind = .request
    }
    return ChatRefusal(kind: kind, reason: reason, status: status)
  }

  /// The reasons of a close 1008 (policy violation) that a reconnect can cure: the server
  /// closed a connection for how it behaved, not for who it is (docs/SECURITY.md, "Limits").
  static let transientPolicyReasons = ["slow consumer", "idle too long", "rate limit", "byte rate limit"]

  /// A WebSocket closed with `code` and `reason`: ``Kind/disconnected`` for a close 4001 (the
  /// server API removed the user); a refusal for a close 1008 that names who the
  /// client is (`authentication required`, `token …`, `not allowed in room X`); `nil` for
  /// every other close, and for a 1008 about how the connection behaved (slow consumer, idle,
  /// rate limits), which the client reconnects after.
  public static func close(code: WebSocketCloseCode?, reason: String) -> ChatRefusal? {
    if code == disconnectedCloseCode {
      return ChatRefusal(kind: .disconnected, reason: reason.isEmpty ? "disconnected by the server" : reason)
    }
    // 4003: refused by the server's auth proxy (docs/API.md, "Auth proxy").
    if code == WebSocketCloseCode(4003) { return refusal(answer: reason) }
    guard code == .policyViolation, !transientPolicyReasons.contains(reason) else { return nil }
    return refusal(answer: reason)
  }

  /// A line from a line or UDP server (`! …`) that refuses this client: an HTTP status line
  /// (the URL named the HTTP port: the hint says to use `ws://`), an authentication
  /// answer (`! authentication required`, `! token expired`, …, after which the server closes)
  /// or `! not allowed in room ROOM` for the `room` the client joins, and
  /// `* disconnected by the server: REASON` (``Kind/disconnected``). `nil` for every other
  /// line, errors the connection survives included.
  public static func line(_ line: String, room: String) -> ChatRefusal? {
    if line.hasPrefix("HTTP/1.") {
      // The hello went to an HTTP listener, which answered it as a bad request.
      return ChatRefusal(
        kind: .request,
        reason:
          "the server answered in HTTP (\(line)): this looks like the HTTP/WebSocket port; try ws:// instead")
    }
    if line.hasPrefix(disconnectedLinePrefix) {
      return ChatRefusal(kind: .disconnected, reason: String(line.dropFirst(2)))
    }
    guard line.hasPrefix("! ") else { return nil }
    let answer = String(line.dropFirst(2))
    if answer == "not allowed in room \(room)" { return ChatRefusal(kind: .room, reason: answer) }
    guard isAuthenticationAnswer(answer) else { return nil }
    return ChatRefusal(kind: .authentication, reason: answer)
  }

  /// What a 1008 close reason or an auth line refuses.
  private static func refusal(answer: String) -> ChatRefusal {
    if answer.hasPrefix("not allowed in room") { return ChatRefusal(kind: .room, reason: answer) }
    if isAuthenticationAnswer(answer) { return ChatRefusal(kind: .authentication, reason: answer) }
    return ChatRefusal(
      kind: .request, reason: answer.isEmpty ? "refused by the server (policy violation)" : answer)
  }

  /// The server's answers to a missing or refused token (docs/SECURITY.md, "Errors and their
  /// answers"): `authentication required…`, `authentication timed out…`, `token …`.
  private static func isAuthenticationAnswer(_ answer: String) -> Bool {
    answer.hasPrefix("authentication required") || answer.hasPrefix("authentication timed out")
      || answer.hasPrefix("token ")
  }
}

extension ChatClient {
  /// The server's final refusal once the client met one (it then stopped: see
  /// ``ChatRefusal``), else `nil`. Also the ``ChatClientError/refusal`` of the client's last
  /// ``Event/error(_:)``.
  public var refusal: ChatRefusal? { state.withLock { $0.link.refusal } }
}
