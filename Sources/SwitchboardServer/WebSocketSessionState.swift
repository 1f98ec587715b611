import SwitchboardIO

/// Where a ``WebSocketSession`` is in its life, and what its keepalive knows of the peer.
///
/// ```
///  echoing(liveness) ───────────────────────────────────────┐
///  joining(liveness) ─join→ awaitingName ─name→ named ──────┴─finish→ finished
///                           (joining another room keeps the state)
/// ```
///
/// Every transition is a method here that says what the session must do; the session (the
/// shell that owns the socket) carries that out. Time comes in as an argument, so the
/// machine is tested without sockets or sleeps.
enum WebSocketSessionState: Equatable {
  /// `/echo`: frames go straight back to the sender; never in a room.
  case echoing(Liveness)
  /// A chat session between the upgrade and joining its first room.
  case joining(Liveness)
  /// In a room under a placeholder name (`Client N`, not announced): the first plain
  /// text frame may be its name.
  case awaitingName(Liveness)
  /// In a room under an announced name.
  case named(Liveness)
  /// Closed or closing: the keepalive is stopped and the room left; input and output are
  /// ignored.
  case finished

  /// The keepalive's view of the peer. Any frame counts as an answer.
  enum Liveness: Equatable {
    /// The peer was last heard at this time; no ping is outstanding.
    case heard(Deadline)
    /// A ping went out; the peer has been quiet since this time.
    case pinged(lastHeard: Deadline)

    var lastHeard: Deadline {
      switch self {
      case .heard(let time), .pinged(let time): time
      }
    }
  }

  /// What a keepalive tick asks of the session.
  enum KeepaliveAction: Equatable {
    /// Nothing: the peer was heard recently (or the session is finished).
    case none
    /// Send a ping.
    case ping
    /// A ping went unanswered for a whole interval: the peer is gone, drop it.
    case drop
  }

  /// What joining a room asks of the session.
  enum JoinAction: Equatable {
    /// Join without announcing: the member has no name yet.
    case join
    /// Join and announce: the member is already named.
    case joinAnnounced
    /// An echo or finished session does not join.
    case ignore
  }

  /// What naming the member asks of the session.
  enum NameAction: Equatable {
    /// The first name: rename, then announce the member to its room.
    case announce
    /// Already announced: just rename.
    case rename
    /// An echo or finished session has no name to set.
    case ignore
  }

  /// What finishing asks of the session.
  enum FinishAction: Equatable {
    /// Stop the keepalive; `leaveRoom` when the member is in a room.
    case stop(leaveRoom: Bool)
    /// Already finished: nothing more.
    case none
  }

  /// A new session: echoing, or a chat session about to join its room.
  init(echo: Bool, now: Deadline) {
    self = echo ? .echoing(.heard(now)) : .joining(.heard(now))
  }

  var isFinished: Bool {
    if case .finished = self { true } else { false }
  }

  /// Whether the member has been announced under a name.
  var isNamed: Bool {
    if case .named = self { true } else { false }
  }

  /// Whether the member is in a room (and must leave it when finished).
  var isInRoom: Bool {
    switch self {
    case .awaitingName, .named: true
    case .echoing, .joining, .finished: false
    }
  }

  /// The peer sent something: it is alive, and any outstanding ping is answered.
  /// - Returns: `false` when the session is finished and the input is to be ignored.
  mutating func heard(at now: Deadline) -> Bool {
    guard liveness != nil else { return false }
    setLiveness(.heard(now))
    return true
  }

  /// The session is about to join a room (its first, or another one).
  mutating func join() -> JoinAction {
    switch self {
    case .joining(let liveness):
      self = .awaitingName(liveness)
      return .join
    case .awaitingName:
      return .join
    case .named:
      return .joinAnnounced
    case .echoing, .finished:
      return .ignore
    }
  }

  /// The member takes a name.
  mutating func name() -> NameAction {
    switch self {
    case .joining(let liveness), .awaitingName(let liveness):
      self = .named(liveness)
      return .announce
    case .named:
      return .rename
    case .echoing, .finished:
      return .ignore
    }
  }

  /// The keepalive timer fired. A peer quiet for half an interval is pinged (again, on
  /// every tick, until it answers); one still quiet a whole interval after it was last
  /// heard, with a ping outstanding, is dropped.
  mutating func keepaliveTick(now: Deadline, interval: Duration) -> KeepaliveAction {
    guard let liveness else { return .none }
    let interval = interval.nanoseconds
    let quiet = now.nanoseconds &- liveness.lastHeard.nanoseconds
    if case .pinged = liveness, quiet >= interval { return .drop }
    guard quiet >= interval / 2 else { return .none }
    setLiveness(.pinged(lastHeard: liveness.lastHeard))
    return .ping
  }

  /// The session ends (peer close, EOF, error, shutdown, dropped peer).
  mutating func finish() -> FinishAction {
    if isFinished { return .none }
    let leaveRoom = isInRoom
    self = .finished
    return .stop(leaveRoom: leaveRoom)
  }

  /// The liveness of an open session; `nil` once finished.
  private var liveness: Liveness? {
    switch self {
    case .echoing(let l), .joining(let l), .awaitingName(let l), .named(let l): l
    case .finished: nil
    }
  }

  private mutating func setLiveness(_ liveness: Liveness) {
    switch self {
    case .echoing: self = .echoing(liveness)
    case .joining: self = .joining(liveness)
    case .awaitingName: self = .awaitingName(liveness)
    case .named: self = .named(liveness)
    case .finished: break
    }
  }
}
