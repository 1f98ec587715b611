import SwitchboardAuth
import SwitchboardChat
import SwitchboardHTTP
import SwitchboardTLS
import SwitchboardWire

/// Tokens on the line dialect (docs/SECURITY.md, "Tokens in the server"): with auth on, the
/// first line must be `auth:TOKEN`; the member joins under the token's `sub` only then, and
/// is closed when the token runs out.
extension LineSession {
  /// The claims of the accepted token (``LineParticipant`` checks names and rooms with them).
  var authClaims: TokenClaims? { auth.claims }

  /// One line of input: the token first when one is required, then the usual commands.
  func handle(line text: String) {
    guard case .awaitingToken = auth else {
      if proxyTakes(line: text) { return }
      perform(line: text)
      return
    }
    switch LineCommand.parse(text) {
    case .empty:
      return
    case .auth(let token):
      authenticate(token)
    default:
      _ = auth.present(nil, verifier: context.configuration.tokenVerifier, now: TokenVerifier.wallClockSeconds())
      refuse(SessionAuth.Answer.required)
    }
  }

  /// With tokens required, closes the connection `--auth-timeout` after it opened unless a
  /// token was accepted by then: `! authentication timed out …`, counted. A client that
  /// connects and says nothing would otherwise hold its descriptor (and a member slot's
  /// worth of memory) for as long as it likes.
  func armAuthDeadline() {
    guard case .awaitingToken = auth, let timeout = context.configuration.limits.authTimeout else { return }
    authTimer = context.loop.scheduleLocal(after: timeout) { [context, memberID] in
      guard let self = context.sessions[memberID] as? LineSession, !self.closing,
        case .awaitingToken = self.auth
      else { return }
      context.metrics.limits.authTimeouts.add(1, ordering: .relaxed)
      context.logger.info(
        "auth timed out",
        metadata: .connection(peer: self.connection.remoteAddress, member: memberID, dialect: "line"))
      self.refuse(SessionAuth.Answer.timedOut)
    }
  }

  private func authenticate(_ token: String) {
    let verifier = context.configuration.tokenVerifier
    let trimmed = String(token.trimmingSpacesAndTabs())
    switch auth.present(trimmed, verifier: verifier, now: TokenVerifier.wallClockSeconds()) {
    case .failure(let refusal):
      refusal.log(context.logger, peer: connection.remoteAddress, member: memberID, dialect: "line")
      refuse(refusal.answer)
    case .success(let claims):
      guard let claims else { return }
      authTimer?.cancel()
      authTimer = nil
      let preferred = context.configuration.defaultRoom
      guard let room = auth.landingRoom(preferred: preferred) else {
        refuse(SessionAuth.Answer.notAllowed(preferred))
        return
      }
      // A token's room counts against `--max-rooms` like any other.
      if let refusal = context.admitRoom(room) {
        refuse(refusal.message)
        return
      }
      let name = context.hub.sanitizeName(claims.subject) ?? claims.subject
      // With an auth proxy, the backend decides before the member joins.
      if case .unasked = proxy {
        askProxy(name: name, claims: claims, target: AuthProxyTarget(room: room), held: [])
        armTokenTimer()
        return
      }
      reply("* authenticated as \(LineDialect.escape(name))")
      resolveCapabilities(in: room)
      context.hub.join(self, shard: context.shard, name: name, room: room, announce: true)
      armTokenTimer()
    }
  }

  func resolveCapabilities(in room: String) {
    roomCapabilities = auth.capabilities(in: room)
  }

  /// A later `auth:TOKEN` line: the fresh token replaces the current one (expiry and
  /// capabilities) when it verifies for the same `sub` and the member's room; otherwise
  /// `! refresh refused: ANSWER` (not `! token …`, which clients read as a final refusal) and
  /// the connection keeps its current token until that one runs out.
  func refresh(token: String) {
    let verifier = context.configuration.tokenVerifier
    guard verifier != nil else {
      reply("* this server does not check tokens; auth: ignored")
      return
    }
    let trimmed = String(token.trimmingSpacesAndTabs())
    let room = context.hub.member(memberID)?.room
    switch auth.refresh(trimmed, verifier: verifier, room: room, now: TokenVerifier.wallClockSeconds()) {
    case .failure(let refusal):
      refusal.log(context.logger, peer: connection.remoteAddress, member: memberID, dialect: "line")
      reply("! refresh refused: " + refusal.answer)
    case .success:
      if let room { resolveCapabilities(in: room) }
      armTokenTimer()
      reply(SessionAuth.RefreshAnswer.refreshed(auth.timeUntilExpiry(verifier: verifier).map(SessionAuth.seconds)))
    }
  }

  /// Arms the token's timers from its claims: the refresh notice (`--token-refresh-lead`
  /// before the end), then the close at expiry. Re-armed by each refresh.
  private func armTokenTimer() {
    authTimer?.cancel()
    authTimer = nil
    guard let left = auth.timeUntilExpiry(verifier: context.configuration.tokenVerifier) else { return }
    guard let notice = SessionAuth.noticeDelay(left: left, lead: context.configuration.tokenRefreshLead) else {
      armExpiry(after: left)
      return
    }
    authTimer = context.loop.scheduleLocal(after: notice) { [context, memberID] in
      guard let self = context.sessions[memberID] as? LineSession, !self.closing,
        let left = self.auth.timeUntilExpiry(verifier: context.configuration.tokenVerifier)
      else { return }
      self.reply(SessionAuth.RefreshAnswer.expiring(SessionAuth.seconds(left)))
      self.armExpiry(after: left)
    }
  }

  private func armExpiry(after left: Duration) {
    authTimer = context.loop.scheduleLocal(after: left) { [context, memberID] in
      guard let self = context.sessions[memberID] as? LineSession, self.auth.expire() else { return }
      self.refuse(TokenError.expired.answer)
    }
  }

  /// Answers `! reason` and closes.
  private func refuse(_ reason: String) {
    reply("! " + reason)
    quit()
  }
}
