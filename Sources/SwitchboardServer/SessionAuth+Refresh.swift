import SwitchboardAuth

/// Capabilities per room and token refresh (docs/SECURITY.md, "Capabilities", "Token
/// refresh"), shared by the WebSocket and line sessions.
extension SessionAuth {
  /// The answers of a token refresh.
  enum RefreshAnswer {
    /// A refresh whose token names another `sub` (JSON code `refresh_failed`).
    static let otherSubject = "refresh token is for another user"
    /// A refresh on a connection that holds no token (auth off, or not yet admitted).
    static let noToken = "this connection holds no token to refresh"
    /// The line a member gets before its token runs out.
    static func expiring(_ seconds: Int64) -> String { "* token expires in \(seconds) s, send auth:TOKEN" }
    /// The line a good refresh gets.
    static func refreshed(_ seconds: Int64?) -> String {
      seconds.map { "* token refreshed, expires in \($0) s" } ?? "* token refreshed, no expiry"
    }
  }

  /// The answers to a request the member's capabilities in its room do not allow.
  enum CapabilityAnswer {
    /// A message from a member without `publish` there (JSON code `publish_forbidden`).
    static func noPublish(_ room: String) -> String { "not allowed to publish in room \(room)" }
    /// `/who` from a member without `presence` there (JSON code `presence_forbidden`).
    static func noPresence(_ room: String) -> String { "not allowed to see who is in room \(room)" }
    /// A history request from a member without `history` there (JSON code `history_forbidden`).
    static func noHistory(_ room: String) -> String { "not allowed to read the history of room \(room)" }
  }

  /// What the member may do in `room`: all four with auth off, the token's grants there
  /// otherwise, nothing before a token was accepted. Sessions resolve it once per join.
  func capabilities(in room: String) -> RoomCapabilities {
    switch self {
    case .open: .all
    case .granted(let claims, _): claims.capabilities(in: room)
    case .awaitingToken, .refused, .expired: []
    }
  }

  /// Takes a fresh token on a live connection: it must verify, name the same `sub` and allow
  /// `room` (the member's room, if it is in one). On success the claims are the new token's
  /// (its expiry and capabilities); on failure nothing changes — the connection keeps its
  /// current token until that one runs out.
  mutating func refresh(_ token: String, verifier: TokenVerifier?, room: String?, now: Int64)
    -> Result<TokenClaims, AuthRefusal>
  {
    guard case .granted(let current, let nameSeen) = self, let verifier else {
      return .failure(AuthRefusal(code: "refresh_failed", answer: RefreshAnswer.noToken, error: nil))
    }
    let verified: VerifiedToken
    do {
      verified = try verifier.verify(token, now: now)
    } catch {
      return .failure(AuthRefusal(code: "refresh_failed", answer: error.answer, error: error))
    }
    guard verified.claims.subject == current.subject else {
      return .failure(AuthRefusal(code: "refresh_failed", answer: RefreshAnswer.otherSubject, error: nil))
    }
    if let room, !verified.claims.allows(room: room) {
      return .failure(AuthRefusal(code: "refresh_failed", answer: Answer.notAllowed(room), error: nil))
    }
    self = .granted(verified.claims, nameSeen: nameSeen)
    return .success(verified.claims)
  }

  /// When to warn a member whose token has `left` until it runs out: `lead` before, but no
  /// earlier than half of `left` (a short token is not asked for a new one at once); `nil`
  /// for no notice (no lead configured, or nothing left).
  static func noticeDelay(left: Duration, lead: Duration?) -> Duration? {
    guard let lead, lead > .zero, left > .zero else { return nil }
    return left - min(lead, left / 2)
  }

  /// Whole seconds in `d`, rounded to the nearest (what a notice says).
  static func seconds(_ d: Duration) -> Int64 {
    (d.components.seconds * 1_000 + d.components.attoseconds / 1_000_000_000_000_000 + 500) / 1_000
  }
}
