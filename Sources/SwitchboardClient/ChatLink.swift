/// How the peer of an open connection answers the heartbeat (``ChatClient/Heartbeat``).
enum ChatLiveness: Equatable {
  /// Heard from at this instant; no probe out.
  case heard(at: ContinuousClock.Instant)
  /// A probe went out at this instant and is not answered yet (less than half the timeout).
  case probing(since: ContinuousClock.Instant)
  /// The probe sent at this instant went unanswered for half the timeout: reported not
  /// viable (``ChatClient/Event/viabilityChanged(_:)``) until anything arrives.
  case unviable(since: ContinuousClock.Instant)
}

/// An open connection as the client's state holds it: the transport, the writer's kick, the
/// heartbeat's view of the peer.
struct ChatOpenConnection {
  let transport: any ChatTransportConnection
  /// Wakes the writer; set when the connection is served.
  var kick: AsyncStream<Void>.Continuation?
  var liveness: ChatLiveness
  /// Line and UDP: heartbeat probes (`/rooms`) written and not yet answered; their replies
  /// are swallowed.
  var probeRepliesExpected = 0
}

/// The life of a ``ChatClient``'s connection, one value: there is no connection, or one that
/// the server has not answered yet, or one that is ready (with its liveness), or the server
/// refused the client for good. Every change goes through a transition below that checks the
/// case it starts from and refuses (returns `false`, changes nothing) any other.
///
///     none ──opened──▶ handshaking ──served (line, UDP) / answered (WebSocket history)──▶ ready
///       ▲                  │                                                       │
///       └──────lost────────┴───────────────────────lost────────────────────────────┘
///     any ──refuse──▶ refused (final: opened is refused from here)
enum ChatLink {
  /// No connection: before the first connect, while connecting, between connections.
  case none
  /// Connected; the server has not answered the connect yet (WebSocket: the history that
  /// answers it). Sends wait.
  case handshaking(ChatOpenConnection)
  /// Connected and answered: the writer sends.
  case ready(ChatOpenConnection)
  /// The server refused this client in a way no reconnect can change; the loop stops.
  case refused(ChatRefusal)

  /// The open connection's transport, if any (to close it).
  var transport: (any ChatTransportConnection)? { open?.transport }

  /// The open connection, handshaking or ready.
  var open: ChatOpenConnection? {
    switch self {
    case .handshaking(let c), .ready(let c): c
    case .none, .refused: nil
    }
  }

  /// Whether the writer may send.
  var isReady: Bool {
    if case .ready = self { return true }
    return false
  }

  /// The writer's kick, when ready.
  var kick: AsyncStream<Void>.Continuation? {
    if case .ready(let c) = self { return c.kick }
    return nil
  }

  /// The final refusal, if the server refused the client.
  var refusal: ChatRefusal? {
    if case .refused(let r) = self { return r }
    return nil
  }

  /// Whether the peer is taken as viable (no heartbeat overdue).
  var isViable: Bool {
    if case .unviable = open?.liveness { return false }
    return true
  }

  // MARK: Transitions

  /// `none` → `handshaking`: a connect succeeded. Refused from any other case (a connection
  /// is already open, or the client was refused).
  @discardableResult
  mutating func opened(_ transport: any ChatTransportConnection, at now: ContinuousClock.Instant = .now)
    -> Bool
  {
    guard case .none = self else { return false }
    self = .handshaking(ChatOpenConnection(transport: transport, kick: nil, liveness: .heard(at: now)))
    return true
  }

  /// The connection is being served: the writer's `kick` is in, the liveness starts over;
  /// a dialect whose connect needs no answer (`answersConnect` false: line, UDP) is ready at
  /// once. Only from `handshaking`. Returns whether the link is now ready.
  @discardableResult
  mutating func served(
    kick: AsyncStream<Void>.Continuation, answersConnect: Bool, at now: ContinuousClock.Instant = .now
  )
    -> Bool
  {
    guard case .handshaking(var c) = self else { return false }
    c.kick = kick
    c.liveness = .heard(at: now)
    c.probeRepliesExpected = 0
    self = answersConnect ? .handshaking(c) : .ready(c)
    return !answersConnect
  }

  /// `handshaking` → `ready`: the server answered the connect (WebSocket: its history).
  /// Returns whether it changed (the writer is then kicked); `false` from any other case.
  @discardableResult
  mutating func answered() -> Bool {
    guard case .handshaking(let c) = self else { return false }
    self = .ready(c)
    return true
  }

  /// `handshaking`/`ready` → `none`: the connection is gone. A refusal stays. Returns whether
  /// it changed.
  @discardableResult
  mutating func lost() -> Bool {
    switch self {
    case .handshaking, .ready:
      self = .none
      return true
    case .none, .refused:
      return false
    }
  }

  /// Any case → `refused`: final. A second refusal keeps the first (returns `false`).
  @discardableResult
  mutating func refuse(_ refusal: ChatRefusal) -> Bool {
    if case .refused = self { return false }
    self = .refused(refusal)
    return true
  }

  // MARK: Liveness

  /// Something arrived: the peer is alive. Returns whether it was not viable before (the
  /// client then reports it viable again).
  mutating func heard(at now: ContinuousClock.Instant) -> Bool {
    return update { c in
      let wasViable = if case .unviable = c.liveness { false } else { true }
      c.liveness = .heard(at: now)
      return !wasViable
    } ?? false
  }

  /// A line or UDP `* rooms:` reply arrived: whether it answers a heartbeat probe (then it
  /// is swallowed).
  mutating func takeProbeReply() -> Bool {
    update { c in
      guard c.probeRepliesExpected > 0 else { return false }
      c.probeRepliesExpected -= 1
      return true
    } ?? false
  }

  /// One heartbeat tick at `now`: probe after ``ChatClient/Heartbeat/interval`` of silence,
  /// not viable after half the timeout without an answer, dead after the timeout (a late tick
  /// may skip the half-way mark: the loss of viability is reported with the death then).
  mutating func heartbeatTick(
    _ heartbeat: ChatClient.Heartbeat, now: ContinuousClock.Instant, countsProbeReplies: Bool
  ) -> ChatClientState.HeartbeatAction {
    update { c in
      switch c.liveness {
      case .heard(let at):
        guard now - at >= heartbeat.interval else { return .none }
        c.liveness = .probing(since: now)
        if countsProbeReplies { c.probeRepliesExpected += 1 }
        return .probe
      case .probing(let since):
        if now - since >= heartbeat.timeout {
          c.liveness = .unviable(since: since)
          return .notViableAndDead
        }
        if now - since >= heartbeat.timeout / 2 {
          c.liveness = .unviable(since: since)
          return .notViable
        }
        return .none
      case .unviable(let since):
        return now - since >= heartbeat.timeout ? .dead : .none
      }
    } ?? .none
  }

  /// Runs `body` on the open connection in place (keeping its case); `nil` without one.
  private mutating func update<R>(_ body: (inout ChatOpenConnection) -> R) -> R? {
    switch self {
    case .handshaking(var c):
      let result = body(&c)
      self = .handshaking(c)
      return result
    case .ready(var c):
      let result = body(&c)
      self = .ready(c)
      return result
    case .none, .refused:
      return nil
    }
  }
}
