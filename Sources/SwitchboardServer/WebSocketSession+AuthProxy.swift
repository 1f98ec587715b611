import SwitchboardAuth
import SwitchboardChat
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardWebSocket
import SwitchboardWire

/// The auth proxy on WebSocket connections (docs/API.md, "Auth proxy"). The upgrade is
/// accepted (as with tokens: a browser page cannot read a refused upgrade's reason); the
/// session joins nothing until the backend answers. It asks at once when the upgrade names the
/// member (`?name=`, or the token's `sub`), else at the first frame: a plain text frame or a
/// `join` frame with a name asks with that name, any other frame asks with none and is held.
/// Frames sent meanwhile are held (bounded) and handled once admitted. A refusal is an `error`
/// frame `auth_refused` and a close 4003 with the reason; no usable answer (timeout,
/// unreachable backend, non-2xx, malformed answer) is `auth_unavailable` and a close 1013
/// (try again later), both final for a client that reconnects only after other closes.
extension WebSocketSession: AuthProxyAsking {
  /// The close code of a refusal by the backend.
  static let proxyRefusedClose = WebSocketCloseCode(4003)

  /// After the upgrade (and the token, if any): waits for the name, or asks at once.
  func beginProxy(target: AuthProxyTarget, head: HTTPRequestHead, query: [String: String]) {
    var target = target
    target.request = AuthProxyRequest(
      transport: "websocket", peer: connection.remoteAddress?.ipAddress ?? "", name: nil, room: target.room,
      cookie: head.headers["Cookie"], authorization: head.headers["Authorization"], query: query,
      claims: auth.claims?.all)
    proxy = .unasked(target)
    // A token fixes the name; else the query may give one.
    if let claims = auth.claims {
      askProxy(name: context.hub.sanitizeName(claims.subject) ?? claims.subject, target: target, held: [])
    } else if let raw = query["name"], let name = admitName(raw) {
      askProxy(name: name, target: target, held: [])
    }
  }

  /// Input at the proxy's gate (only while ``AuthProxyState/intercepts``).
  func proxyTakes(_ input: AuthProxyHeld) {
    switch proxy {
    case .unasked(var target):
      guard case .text(let text) = input, case .json = mode else {
        askProxy(name: nil, target: target, held: [input])
        return
      }
      switch ClientFrame.parse(text, maxLength: protocolState.configuration.maxMessageSize) {
      case .plain(let body):
        // The seed protocol: the first plain frame is the name.
        switch context.hub.admitName(body) {
        case .success(let name): askProxy(name: name, target: target, held: [])
        case .failure(.empty): askProxy(name: nil, target: target, held: [input])
        case .failure(let refusal): refuseName(refusal)
        }
      case .join(let name, let room, let since, let epoch):
        if let room {
          guard auth.mayJoin(room) else {
            sendText(JSONDialect.error(code: "room_forbidden", message: SessionAuth.Answer.notAllowed(room)))
            return
          }
          target.room = room
          target.request?.room = room
        }
        if let since { target.since = since }
        if let epoch { target.epoch = epoch }
        askProxy(name: name.flatMap { admitName($0) }, target: target, held: [])
      default:
        askProxy(name: nil, target: target, held: [input])
      }
    case .pending:
      if proxy.hold(input, limit: context.configuration.authProxy?.maxHeldBytes ?? 0) == .overflow {
        context.core.authProxy?.metrics.failures.add(1, ordering: .relaxed)
        refuse(code: "auth_refused", answer: AuthProxyState.overflowAnswer, close: Self.proxyRefusedClose)
      }
    case .off, .admitted, .refused:
      break
    }
  }

  private func askProxy(name: String?, target: AuthProxyTarget, held: [AuthProxyHeld]) {
    guard var request = target.request else { return }
    request.name = name
    context.askAuthProxy(request, target: target, held: held, state: &proxy, for: memberID)
  }

  /// A `join` frame of an admitted member whose admission gave no `rooms`: `true` when the
  /// backend is being asked about the room (joined once it allows).
  func proxyTakes(join target: AuthProxyTarget) -> Bool {
    context.askAuthProxy(join: target, state: &proxy, for: memberID)
  }

  /// The answer (or the timeout) for this session.
  func proxyAnswered(_ result: Result<AuthProxyAnswer, AuthProxyFailure>) {
    let decision = proxy.decide(result)
    context.core.authProxy?.record(
      decision, logger: context.logger, peer: connection.remoteAddress, member: memberID, dialect: "websocket"
    )
    switch decision {
    case .stale:
      return
    case .deny(let reason):
      refuse(code: "auth_refused", answer: reason, close: Self.proxyRefusedClose)
    case .fail:
      refuse(code: "auth_unavailable", answer: AuthProxyFailure.answer, close: .tryAgainLater)
    case .admit(let grant, let target, let held, _):
      guard let room = grant.landingRoom(preferred: target.room) else {
        refuse(
          code: "room_forbidden", answer: SessionAuth.Answer.notAllowed(target.room),
          close: Self.proxyRefusedClose)
        return
      }
      if let refusal = context.admitRoom(room) {
        refuse(code: refusal.code, answer: refusal.message)
        return
      }
      joinRoom(room, since: target.since, epoch: target.epoch)
      let name = grant.name.map { context.hub.sanitizeName($0) ?? $0 } ?? "Client \(memberID.raw)"
      setName(name, decided: true)
      deliver(held)
    case .join(let target, let held):
      joinRoom(target.room, since: target.since, epoch: target.epoch)
      deliver(held)
    case .joinRefused(let reason, let failure, let held):
      sendText(JSONDialect.error(code: failure == nil ? "auth_refused" : "auth_unavailable", message: reason))
      deliver(held)
    }
  }

  /// Frames held while the answer was awaited, in order.
  private func deliver(_ held: [AuthProxyHeld]) {
    for input in held where !connection.isClosed {
      switch input {
      case .text(let text): handleText(text)
      case .binary(let data): handleBinary(data)
      }
    }
  }
}
