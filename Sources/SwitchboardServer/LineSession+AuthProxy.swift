import SwitchboardAuth
import SwitchboardChat
import SwitchboardIO
import SwitchboardWire

/// The auth proxy on the line dialect (docs/API.md, "Auth proxy"): with `--auth-proxy`, a line
/// connection is in no room until the backend admitted it. Its first line asks — `iam:NAME`
/// (or `/nick NAME`) with that name, anything else with none (that line is held and handled
/// once admitted) — or, with tokens on, the accepted `auth:` line asks with the token's name
/// and claims. Lines sent meanwhile are held (bounded); a refusal is `! REASON`, then close.
extension LineSession: AuthProxyAsking {
  /// What the auth proxy admitted (``LineParticipant`` fixes the name and limits the rooms).
  var proxyGrant: AuthProxyGrant? { proxy.grant }

  /// Handles `text` at the proxy's gate: `true` when it was taken (asked with, held or
  /// dropped), `false` when the session handles it as usual.
  func proxyTakes(line text: String) -> Bool {
    guard proxy.intercepts else { return false }
    switch proxy {
    case .unasked(let target):
      var name: String? = nil
      var held: [AuthProxyHeld] = [.text(text)]
      switch LineCommand.parse(text) {
      case .empty:
        return true
      case .iam(let raw), .nick(let raw):
        switch context.hub.admitName(raw) {
        case .success(let admitted): name = admitted
        case .failure(let refusal):
          reply("! " + refusal.answer)
          return true
        }
        held = []
      default:
        break
      }
      askProxy(name: name, claims: nil, target: target, held: held)
    case .pending:
      if proxy.hold(.text(text), limit: context.configuration.authProxy?.maxHeldBytes ?? 0) == .overflow {
        context.core.authProxy?.metrics.failures.add(1, ordering: .relaxed)
        refuseByProxy(AuthProxyState.overflowAnswer)
      }
    case .refused, .off, .admitted:
      break
    }
    return true
  }

  /// Sends the question for this connection: `name` (nil: none asked for), the token's
  /// `claims` if one was accepted, `held` the input to deliver once admitted.
  func askProxy(name: String?, claims: TokenClaims?, target: AuthProxyTarget, held: [AuthProxyHeld]) {
    let request = AuthProxyRequest(
      transport: "tcp", peer: connection.remoteAddress?.ipAddress ?? "", name: name, room: target.room,
      claims: claims?.all)
    context.askAuthProxy(request, target: target, held: held, state: &proxy, for: memberID)
  }

  /// `/join ROOM` of an admitted member whose admission gave no `rooms`: asks the backend.
  func proxyTakes(join room: String) -> Bool {
    context.askAuthProxy(join: AuthProxyTarget(room: room), state: &proxy, for: memberID)
  }

  /// The answer (or the timeout) for this connection.
  func proxyAnswered(_ result: Result<AuthProxyAnswer, AuthProxyFailure>) {
    guard !closing else { return }
    let decision = proxy.decide(result)
    context.core.authProxy?.record(
      decision, logger: context.logger, peer: connection.remoteAddress, member: memberID, dialect: "line")
    switch decision {
    case .stale:
      return
    case .deny(let reason):
      refuseByProxy(reason)
    case .fail:
      refuseByProxy(AuthProxyFailure.answer)
    case .admit(let grant, let target, let held, let asked):
      guard let room = grant.landingRoom(preferred: target.room) else {
        refuseByProxy(SessionAuth.Answer.notAllowed(target.room))
        return
      }
      if let refusal = context.admitRoom(room) {
        refuseByProxy(refusal.message)
        return
      }
      let name = grant.name.map { context.hub.sanitizeName($0) ?? $0 } ?? "Client \(memberID.raw)"
      // A token holder is told its name with `* authenticated as`, as without a proxy.
      let told = auth.claims != nil ? name : asked
      if auth.claims != nil { reply("* authenticated as \(LineDialect.escape(name))") }
      resolveCapabilities(in: room)
      context.hub.join(self, shard: context.shard, name: name, room: room, announce: true) { [self] result in
        guard !closing, context.hub.member(memberID)?.room == result.room else { return }
        // Told when the name is not the one it was told (the backend's, or made unique).
        if let now = context.hub.member(memberID)?.name, now != told {
          reply("* you are now \(LineDialect.escape(now))")
        }
      }
      deliver(held)
    case .join(let target, let held):
      joinAsAsked(target.room)
      deliver(held)
    case .joinRefused(let reason, _, let held):
      reply("! " + LineDialect.escape(reason))
      deliver(held)
    }
  }

  /// Lines held while the answer was awaited, in order.
  private func deliver(_ held: [AuthProxyHeld]) {
    for input in held {
      guard !closing, case .text(let line) = input else { continue }
      perform(line: line)
    }
  }

  /// `! reason`, then close.
  private func refuseByProxy(_ reason: String) {
    reply("! " + LineDialect.escape(reason))
    quit()
  }
}
