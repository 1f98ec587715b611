import SwitchboardAuth
import SwitchboardChat
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardTLS
import SwitchboardWebSocket
import SwitchboardWire

/// Tokens on WebSocket upgrades (docs/SECURITY.md, "Tokens in the server"). The upgrade is
/// accepted either way; a missing or bad token, or a room the token does not allow, gets an
/// `error` frame (JSON dialect) and a close 1008 (policy violation) whose reason is the
/// answer, so a browser page, which cannot read a refused upgrade's status or body, can show
/// it. A token running out during the session closes it the same way (`token expired`).
extension WebSocketSession {
  /// The token of an upgrade: the `token` query item, else an `Authorization: Bearer` header.
  static func token(in head: HTTPRequestHead) -> String? {
    if let token = head.query["token"], !token.isEmpty { return token }
    guard let value = head.headers["Authorization"] else { return nil }
    let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
    return String(parts[1].trimmingSpacesAndTabs())
  }

  /// Checks the upgrade's token (when the server requires one) and the room asked for
  /// (`explicit`: a `/rooms/NAME` path; otherwise the default room, which falls back to the
  /// token's first named room). The room to join, or `nil` when the session was refused and
  /// is closing.
  func admit(token: String?, room: String, explicit: Bool) -> String? {
    guard case .awaitingToken = auth else { return room }
    let verifier = context.configuration.tokenVerifier
    switch auth.present(token, verifier: verifier, now: TokenVerifier.wallClockSeconds()) {
    case .failure(let refusal):
      refusal.log(context.logger, peer: connection.remoteAddress, member: memberID, dialect: "websocket")
      refuse(code: refusal.code, answer: refusal.answer)
      return nil
    case .success:
      let target = explicit ? (auth.mayJoin(room) ? room : nil) : auth.landingRoom(preferred: room)
      if target == nil && !isEcho {
        refuse(code: "room_forbidden", answer: SessionAuth.Answer.notAllowed(room))
        return nil
      }
      armTokenTimer()
      return target ?? room
    }
  }

  /// A `refresh` frame: the fresh token replaces the current one (expiry and capabilities)
  /// when it verifies for the same `sub` and the member's room — answered `token_refreshed`;
  /// otherwise an `error` frame `refresh_failed` with the answer, and the connection keeps
  /// its current token until that one runs out.
  func refresh(token: String) {
    let verifier = context.configuration.tokenVerifier
    let room = context.hub.member(memberID)?.room
    switch auth.refresh(token, verifier: verifier, room: room, now: TokenVerifier.wallClockSeconds()) {
    case .failure(let refusal):
      refusal.log(context.logger, peer: connection.remoteAddress, member: memberID, dialect: "websocket")
      sendText(JSONDialect.error(code: refusal.code, message: refusal.answer))
    case .success:
      if let room { roomCapabilities = auth.capabilities(in: room) }
      armTokenTimer()
      sendText(JSONDialect.tokenRefreshed(seconds: auth.timeUntilExpiry(verifier: verifier).map(SessionAuth.seconds)))
    }
  }

  /// Answers a request the member's capabilities in its room do not allow: an `error` frame
  /// `code` (JSON dialect) or a `! ` text frame (text dialect); the connection stays.
  func refuseCapability(_ code: String, _ answer: (String) -> String, ref: String?) {
    let text = answer(context.hub.member(memberID)?.room ?? "")
    sendText(mode == .json ? JSONDialect.error(code: code, message: text, ref: ref) : "! " + text)
  }

  /// Arms the token's timers from its claims: the `token_expiring` notice
  /// (`--token-refresh-lead` before the end; JSON dialect only, the text dialect has no
  /// frame for it), then the close at expiry. Re-armed by each refresh.
  private func armTokenTimer() {
    limitState?.authTimer?.cancel()
    let verifier = context.configuration.tokenVerifier
    guard let left = auth.timeUntilExpiry(verifier: verifier) else { return }
    let limits = limitState ?? SessionLimitState(now: Deadline.now())
    limitState = limits
    guard case .json = mode,
      let notice = SessionAuth.noticeDelay(left: left, lead: context.configuration.tokenRefreshLead)
    else {
      armExpiry(after: left)
      return
    }
    limits.authTimer = context.loop.scheduleLocal(after: notice) { [context, memberID] in
      guard let self = context.sessions[memberID] as? WebSocketSession, case .granted = self.auth,
        let left = self.auth.timeUntilExpiry(verifier: context.configuration.tokenVerifier)
      else { return }
      self.sendText(JSONDialect.tokenExpiring(seconds: SessionAuth.seconds(left)))
      self.armExpiry(after: left)
    }
  }

  private func armExpiry(after left: Duration) {
    limitState?.authTimer = context.loop.scheduleLocal(after: left) { [context, memberID] in
      guard let self = context.sessions[memberID] as? WebSocketSession, self.auth.expire() else { return }
      self.refuse(code: "token_expired", answer: TokenError.expired.answer)
    }
  }

  private var isEcho: Bool {
    if case .echo = mode { true } else { false }
  }

  /// An `error` frame (JSON dialect), then a close (1008 unless `close` says otherwise) with
  /// `answer` as its reason.
  func refuse(code: String, answer: String, close: WebSocketCloseCode = .policyViolation) {
    if case .json = mode { sendText(JSONDialect.error(code: code, message: answer)) }
    if let frame = protocolState.close(code: close, reason: String(answer.prefix(120))) {
      connection.write(frame.withUnsafeBytes { SharedBytes(copying: $0) })
    }
    finish()
    connection.close()
  }
}
