#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import SwitchboardAuth
import SwitchboardChat
import SwitchboardIO
import SwitchboardLog

/// Where one connection stands with signed tokens (docs/SECURITY.md, "Tokens in the
/// server"), shared by the WebSocket and line sessions.
///
/// ```
///  open                                  (auth off: first-come names, every room)
///  awaitingToken ─present(good)→ granted ─expire→ expired
///        └────────present(bad)→ refused
/// ```
///
/// The session (the shell owning the socket) carries out what each transition answers.
enum SessionAuth {
  /// The server checks no tokens.
  case open
  /// Tokens are required and none was accepted yet.
  case awaitingToken
  /// A token was accepted: the name and rooms come from its claims. `nameSeen` is set by the
  /// first plain WebSocket frame, which the seed protocol makes the member's name. Boxed
  /// (`indirect`): the claims are ~100 bytes that a session without a token would
  /// otherwise hold inline.
  indirect case granted(TokenClaims, nameSeen: Bool)
  /// A token was refused: the connection is being closed.
  case refused
  /// The token ran out during the session: the connection is being closed.
  case expired

  /// The JSON `error` codes and line answers of the server's token checks.
  enum Answer {
    /// No token where one is required (JSON code `auth_required`).
    static let required = "authentication required"
    /// `iam:`, `/nick` or a `name` other than the token's `sub` (JSON code `name_fixed`).
    static let nameFixed = "name is fixed by your token"
    /// A room the token's `rooms` do not match (JSON code `room_forbidden`).
    static func notAllowed(_ room: String) -> String { "not allowed in room \(room)" }
    /// No `auth:` line within `--auth-timeout` (lines only).
    static let timedOut = "authentication timed out (send auth:TOKEN first)"
  }

  init(verifier: TokenVerifier?) {
    self = verifier == nil ? .open : .awaitingToken
  }

  /// The claims of the accepted token, if any.
  var claims: TokenClaims? {
    if case .granted(let claims, _) = self { claims } else { nil }
  }

  /// Whether the connection may do anything yet.
  var isAdmitted: Bool {
    switch self {
    case .open, .granted: true
    case .awaitingToken, .refused, .expired: false
    }
  }

  /// Checks `token` (nil: none was given). On success the state is ``granted(_:nameSeen:)``;
  /// otherwise ``refused`` and the error's ``TokenError/answer`` is the reason to give.
  /// Only valid in ``awaitingToken``; anything else is returned unchanged as a success with
  /// the current claims (``open`` has none).
  mutating func present(_ token: String?, verifier: TokenVerifier?, now: Int64) -> Result<TokenClaims?, AuthRefusal> {
    guard case .awaitingToken = self, let verifier else { return .success(claims) }
    guard let token, !token.isEmpty else {
      self = .refused
      return .failure(AuthRefusal(code: "auth_required", answer: Answer.required, error: nil))
    }
    do {
      let verified = try verifier.verify(token, now: now)
      self = .granted(verified.claims, nameSeen: false)
      return .success(verified.claims)
    } catch {
      self = .refused
      return .failure(AuthRefusal(code: "auth_failed", answer: error.answer, error: error))
    }
  }

  /// Whether the member may be in `room`.
  func mayJoin(_ room: String) -> Bool {
    switch self {
    case .open: true
    case .granted(let claims, _): claims.allows(room: room)
    case .awaitingToken, .refused, .expired: false
    }
  }

  /// Whether the member may take `name` (with a token, only its `sub`).
  func mayTake(name: String) -> Bool {
    switch self {
    case .open: true
    case .granted(let claims, _): name == claims.subject
    case .awaitingToken, .refused, .expired: false
    }
  }

  /// The room a member lands in after its token was accepted: `preferred` when the token
  /// allows it, else the first room the token names without a wildcard and lets it join;
  /// `nil` when neither.
  func landingRoom(preferred: String) -> String? {
    guard let claims else { return mayJoin(preferred) ? preferred : nil }
    if claims.allows(room: preferred) { return preferred }
    // A named room the token lets it join (the object form's names come sorted: an object
    // has no order).
    return claims.rooms.first { !$0.isWildcard && claims.allows(room: $0.text) }?.text
  }

  /// The first plain WebSocket frame: `true` when it is the member's name (the token's
  /// `sub`, which the seed page sends first) and is to be swallowed rather than published.
  /// Later frames, and a first one that is not the name, are messages.
  mutating func firstPlainFrameIsName(_ text: String) -> Bool {
    guard case .granted(let claims, false) = self else { return false }
    self = .granted(claims, nameSeen: true)
    return text == claims.subject
  }

  /// The token ran out. `true` when the session was admitted by it and must now close.
  mutating func expire() -> Bool {
    guard case .granted = self else { return false }
    self = .expired
    return true
  }

  /// How long until the token runs out (its `exp` plus the verifier's leeway, the moment
  /// the verifier would start refusing it); `nil` when it has no `exp` or auth is off.
  func timeUntilExpiry(verifier: TokenVerifier?) -> Duration? {
    guard let verifier, let exp = claims?.expiresAt else { return nil }
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let seconds = exp + verifier.leeway - Int64(now.tv_sec)
    // A token good for more than ~68 years needs no timer (and would overflow one).
    guard seconds < 1 << 31 else { return nil }
    return .nanoseconds(max(0, seconds * 1_000_000_000 - Int64(now.tv_nsec)))
  }
}

/// Why a connection's token was refused: the JSON `error` code, the text answered (after
/// `! ` on lines, the reason of a WebSocket close 1008) and the verifier's error.
struct AuthRefusal: Error {
  let code: String
  let answer: String
  let error: TokenError?

  /// Logs the refusal at info: `token refused`, with the verifier's detail (never the token).
  func log(_ logger: Log, peer: SocketAddress?, member: MemberID, dialect: String) {
    logger.info(
      "token refused",
      metadata: .connection(peer: peer, member: member, dialect: dialect, error: error.map { "\($0)" } ?? answer))
  }
}
