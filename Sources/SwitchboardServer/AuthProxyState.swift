import SwitchboardAuth
import SwitchboardIO

/// Where one connection stands with the auth proxy (`serve --auth-proxy`, docs/API.md, "Auth
/// proxy"), shared by the WebSocket and line sessions.
///
/// ```
///  off                                       (no proxy: nothing to ask)
///  unasked ─names itself / first input→ pending ─allow→ admitted ─join another room→ pending(previous)
///                                          ├──deny, failure, timeout, held input over limit→ refused
///  pending(previous) ─allow→ admitted (joins) │ deny, failure, timeout→ admitted (stays where it is)
/// ```
///
/// While ``pending(_:)`` the connection's input is held (bounded by bytes) and delivered only
/// once the answer came. At the first question it is in no room and a refusal drops it; a
/// join's question (asked only when the admission's answer gave no `rooms`) leaves the member
/// where it is, and a refusal only refuses the join. The session carries out
/// what each transition answers; an answer arriving in any state but ``pending(_:)`` (late,
/// after a timeout or a close) is stale and changes nothing.
///
/// `indirect`: every session holds one, and without a proxy it must cost a session no more
/// than a word (the payloads, a request and held input, are boxed).
indirect enum AuthProxyState {
  /// No auth proxy is configured.
  case off
  /// A proxy is configured and the connection has not named itself (nor sent anything) yet.
  case unasked(AuthProxyTarget)
  /// The question is out; input is held.
  case pending(AuthProxyPending)
  /// The backend admitted the connection: its name and rooms are fixed by the answer.
  case admitted(AuthProxyGrant)
  /// Refused (by the backend, fail closed, or too much input meanwhile): closing.
  case refused

  /// What holding input answers.
  enum HoldAction: Equatable {
    /// Kept for delivery after admission.
    case held
    /// More than the limit was held: the state is now ``refused``; close with ``overflowAnswer``.
    case overflow
    /// Not pending: deliver the input as usual.
    case deliver
  }

  /// What an answer (or its absence) asks of the session.
  enum Decision {
    /// Join `target` as `grant` says, then deliver `held` in order; `asked` is the name the
    /// connection asked for (the member is told when it got another).
    case admit(AuthProxyGrant, target: AuthProxyTarget, held: [AuthProxyHeld], asked: String?)
    /// Refused by the backend: tell `reason` and close.
    case deny(reason: String)
    /// No usable answer: tell ``AuthProxyFailure/answer`` and close (fail closed).
    case fail(AuthProxyFailure)
    /// A join's question was allowed: join `target`, then deliver `held`.
    case join(AuthProxyTarget, held: [AuthProxyHeld])
    /// A join's question was refused (`reason`) or got no usable answer (`failure`): the member
    /// stays where it is and is told; then deliver `held`.
    case joinRefused(reason: String, failure: AuthProxyFailure?, held: [AuthProxyHeld])
    /// The connection was not waiting (a late answer): nothing to do.
    case stale
  }

  /// The answer to input held past ``AuthProxyConfiguration/maxHeldBytes``.
  static let overflowAnswer = "too much input before authorization"

  /// A new connection's state: ``off`` without a proxy, else ``unasked(_:)`` for `room`.
  init(proxy: Bool, room: String) {
    self = proxy ? .unasked(AuthProxyTarget(room: room)) : .off
  }

  /// Whether input goes to the proxy's gate rather than straight to the session.
  var intercepts: Bool {
    switch self {
    case .unasked, .pending, .refused: true
    case .off, .admitted: false
    }
  }

  /// Whether the connection was already admitted (a refusal or failure then refuses a join,
  /// not the connection).
  var wasAdmitted: Bool {
    switch self {
    case .admitted: true
    case .pending(let pending): pending.previous != nil
    case .off, .unasked, .refused: false
    }
  }

  /// The grant once admitted.
  var grant: AuthProxyGrant? {
    if case .admitted(let grant) = self { grant } else { nil }
  }

  /// The room and resume point the connection will join (`nil` unless ``unasked(_:)``).
  var target: AuthProxyTarget? {
    if case .unasked(let target) = self { target } else { nil }
  }

  /// Sends `request`: `unasked → pending`, holding `held` (the input that caused it, when
  /// it was not the name itself) and joining `target`. `false` (nothing changes) unless unasked.
  mutating func ask(
    _ request: AuthProxyRequest, target: AuthProxyTarget, held: [AuthProxyHeld], timer: Scheduled?
  ) -> Bool {
    guard case .unasked = self else { return false }
    self = .pending(AuthProxyPending(request: request, target: target, held: held, timer: timer))
    return true
  }

  /// The question for joining `target` when the admission's answer left rooms to be asked
  /// about (it gave no `rooms`): `admitted → pending(previous)`. `nil` (nothing changes) when
  /// not admitted, when the answer's `rooms` decide (``AuthProxyGrant/allows(room:)``), or
  /// for the room the member is in.
  mutating func askToJoin(_ target: AuthProxyTarget, from room: String?, timer: () -> Scheduled?)
    -> AuthProxyRequest?
  {
    guard case .admitted(let grant) = self, grant.rooms == nil, target.room != room else { return nil }
    var request = grant.request
    request.room = target.room
    request.name = grant.name
    self = .pending(
      AuthProxyPending(request: request, target: target, held: [], timer: timer(), previous: grant))
    return request
  }

  /// Input while pending: held up to `limit` bytes in all.
  mutating func hold(_ input: AuthProxyHeld, limit: Int) -> HoldAction {
    guard case .pending(var pending) = self else { return .deliver }
    pending.heldBytes += input.byteCount
    guard pending.heldBytes <= limit else {
      pending.timer?.cancel()
      self = .refused
      return .overflow
    }
    // The old value is dropped first, so the array is not copied on append.
    self = .refused
    pending.held.append(input)
    self = .pending(pending)
    return .held
  }

  /// The answer (or its absence) arrived.
  mutating func decide(_ result: Result<AuthProxyAnswer, AuthProxyFailure>) -> Decision {
    guard case .pending(let pending) = self else { return .stale }
    pending.timer?.cancel()
    if let previous = pending.previous {
      self = .admitted(previous)
      switch result {
      case .success(.allow(_, let rooms)):
        self = .admitted(AuthProxyGrant(name: previous.name, rooms: rooms, request: previous.request))
        return .join(pending.target, held: pending.held)
      case .success(.deny(let reason)):
        return .joinRefused(reason: reason, failure: nil, held: pending.held)
      case .failure(let failure):
        return .joinRefused(reason: AuthProxyFailure.answer, failure: failure, held: pending.held)
      }
    }
    switch result {
    case .success(.allow(let name, let rooms)):
      let grant = AuthProxyGrant(name: name ?? pending.request.name, rooms: rooms, request: pending.request)
      self = .admitted(grant)
      return .admit(grant, target: pending.target, held: pending.held, asked: pending.request.name)
    case .success(.deny(let reason)):
      self = .refused
      return .deny(reason: reason)
    case .failure(let failure):
      self = .refused
      return .fail(failure)
    }
  }

  /// The connection closed: a pending question's timer is cancelled; its answer will be stale.
  mutating func close() {
    if case .pending(let pending) = self { pending.timer?.cancel() }
    if case .off = self { return }
    self = .refused
  }
}

/// The room (and, for a WebSocket, the resume point) a connection joins once admitted.
struct AuthProxyTarget: Equatable {
  var room: String
  var since: UInt64? = nil
  var epoch: String? = nil
  /// The question as far as it is known before the name: the WebSocket upgrade's headers and
  /// query, the token's claims (`nil`: the session builds it when it asks).
  var request: AuthProxyRequest? = nil
}

/// A connection waiting for the proxy's answer.
struct AuthProxyPending {
  /// The question (its `name` is the one asked for; `nil`: it sent something else first).
  var request: AuthProxyRequest
  var target: AuthProxyTarget
  var held: [AuthProxyHeld]
  var heldBytes = 0
  /// Fires at `--auth-proxy-timeout`: no answer by then is a refusal.
  var timer: Scheduled?
  /// For a join's question, what the member was admitted with (kept whatever the answer).
  var previous: AuthProxyGrant?

  init(
    request: AuthProxyRequest, target: AuthProxyTarget, held: [AuthProxyHeld], timer: Scheduled?,
    previous: AuthProxyGrant? = nil
  ) {
    self.request = request
    self.target = target
    self.held = held
    self.heldBytes = held.reduce(0) { $0 + $1.byteCount }
    self.timer = timer
    self.previous = previous
  }
}

/// Input held while the answer is awaited.
enum AuthProxyHeld: Equatable {
  /// A line, or a WebSocket text frame.
  case text(String)
  /// A WebSocket binary frame.
  case binary([UInt8])

  var byteCount: Int {
    switch self {
    case .text(let s): s.utf8.count
    case .binary(let b): b.count
    }
  }
}

/// What the backend admitted: the member's name (the answer's, else the one asked for; `nil`
/// when neither: the placeholder `Client N` stays) and the rooms it may be in (`nil`: any).
struct AuthProxyGrant: Equatable {
  let name: String?
  let rooms: [RoomPattern]?
  /// The question that admitted it (a join's question is this one with another room).
  let request: AuthProxyRequest

  /// Whether the member may be in `room`.
  func allows(room: String) -> Bool {
    guard let rooms else { return true }
    return RoomPattern.any(rooms, match: room)
  }

  /// The room to land in: `preferred` when allowed, else the first room the answer names
  /// without a wildcard; `nil` when neither.
  func landingRoom(preferred: String) -> String? {
    if allows(room: preferred) { return preferred }
    return rooms?.first { !$0.isWildcard }?.text
  }

  /// The line answer and JSON message to a name change after admission.
  static let nameFixed = "name is fixed by the auth proxy"
}
