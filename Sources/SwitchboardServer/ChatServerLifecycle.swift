/// Where a ``ChatServer`` is in its life, the way Hummingbird's server moves:
///
/// ```
/// initial ─start()→ starting ─→ running ─shutdown()→ shuttingDown ─→ stopped
///    └──────────────────────────────shutdown()──────────↗
/// ```
///
/// A server starts once: ``start()`` a second time, or after ``shutdown(reason:)``, is a
/// programming error (the loops it would bind on are gone after a shutdown, so it could
/// only hang). Shutting down is idempotent and also fine before a start.
///
/// A value held under the server's one lock; each method is one checked transition and
/// says what the server must do, outside the lock.
enum ChatServerLifecycle: Equatable {
  /// Made, nothing bound.
  case initial
  /// ``ChatServer/start()`` is binding the listeners. `shutdownRequested` holds the reason
  /// of a ``ChatServer/shutdown(reason:)`` that came from another thread meanwhile; the
  /// start carries it out when its binds are done.
  case starting(shutdownRequested: String?)
  /// Every enabled listener is bound.
  case running
  /// A shutdown is under way: goodbyes, closing the sockets, stopping the loops.
  case shuttingDown
  /// The loops are stopped and the store closed.
  case stopped

  /// What ``start()`` asks of the server.
  enum StartAction: Equatable {
    /// Bind the listeners.
    case bind
    /// A programming error: stop the process with this message.
    case misuse(String)
  }

  /// What the end of the binds asks of the server.
  enum StartedAction: Equatable {
    /// Running: nothing more.
    case none
    /// A shutdown arrived while binding: shut down now, with this reason.
    case shutDown(reason: String)
  }

  /// What ``shutdown(reason:)`` asks of the server.
  enum ShutdownAction: Equatable {
    /// Say goodbye, close the sockets and stop the loops, then call ``stopped()``.
    case shutDown
    /// A start is binding on another thread; it shuts down when it is done.
    case deferToStart
    /// Already shutting down or stopped: nothing.
    case none
  }

  /// ``ChatServer/start()`` was called.
  mutating func start() -> StartAction {
    switch self {
    case .initial:
      self = .starting(shutdownRequested: nil)
      return .bind
    case .starting, .running:
      return .misuse("ChatServer.start() called twice: a server starts once")
    case .shuttingDown, .stopped:
      return .misuse("ChatServer.start() called after shutdown(): make a new ChatServer to serve again")
    }
  }

  /// Every listener bound.
  mutating func started() -> StartedAction {
    switch self {
    case .starting(nil):
      self = .running
      return .none
    case .starting(let reason?):
      self = .shuttingDown
      return .shutDown(reason: reason)
    case .initial, .running, .shuttingDown, .stopped:
      preconditionFailure("ChatServerLifecycle.started() in \(self)")
    }
  }

  /// A listener could not bind: the start gives up and shuts down what it made.
  mutating func startFailed() -> ShutdownAction {
    switch self {
    case .starting:
      self = .shuttingDown
      return .shutDown
    case .initial, .running, .shuttingDown, .stopped:
      preconditionFailure("ChatServerLifecycle.startFailed() in \(self)")
    }
  }

  /// ``ChatServer/shutdown(reason:)`` was called.
  mutating func shutdown(reason: String) -> ShutdownAction {
    switch self {
    case .initial, .running:
      self = .shuttingDown
      return .shutDown
    case .starting(nil):
      self = .starting(shutdownRequested: reason)
      return .deferToStart
    case .starting, .shuttingDown, .stopped:
      return .none
    }
  }

  /// The shutdown is complete.
  mutating func stopped() {
    precondition(self == .shuttingDown, "ChatServerLifecycle.stopped() in \(self)")
    self = .stopped
  }
}
