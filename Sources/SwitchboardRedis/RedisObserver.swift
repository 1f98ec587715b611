import Synchronization

/// The part of a connection any thread may read: its state and last error, the state
/// handler, and the tasks waiting for the first attempt's outcome. One lock around one
/// snapshot; handlers and continuations run after unlocking.
final class RedisObserver: Sendable {
  private struct Snapshot {
    var state: RedisConnectionState = .idle
    var lastError: RedisError?
    /// `nil` until the first attempt ended: ready (`nil` error) or failed.
    var firstOutcome: Result<Void, RedisError>?
    var waiters: [CheckedContinuation<Result<Void, RedisError>, Never>] = []
  }

  private let snapshot = Mutex(Snapshot())
  private let handler: (@Sendable (RedisConnectionState) -> Void)?

  init(handler: (@Sendable (RedisConnectionState) -> Void)?) {
    self.handler = handler
  }

  var state: RedisConnectionState { snapshot.withLock { $0.state } }
  var lastError: RedisError? { snapshot.withLock { $0.lastError } }

  /// Records a transition (on the connection's loop) and tells whoever waits.
  func update(_ state: RedisConnectionState, error: RedisError?) {
    let (waiters, outcome) = snapshot.withLock {
      snap -> ([CheckedContinuation<Result<Void, RedisError>, Never>], Result<Void, RedisError>?) in
      snap.state = state
      if let error { snap.lastError = error }
      guard snap.firstOutcome == nil else { return ([], nil) }
      let outcome: Result<Void, RedisError>?
      switch state {
      case .ready: outcome = .success(())
      case .backingOff, .closed:
        outcome = .failure(snap.lastError ?? .closed())
      default: outcome = nil
      }
      guard let outcome else { return ([], nil) }
      snap.firstOutcome = outcome
      let waiters = snap.waiters
      snap.waiters = []
      return (waiters, outcome)
    }
    if let outcome { for waiter in waiters { waiter.resume(returning: outcome) } }
    handler?(state)
  }

  /// Waits until the first connection attempt became ready or failed.
  func firstOutcome() async -> Result<Void, RedisError> {
    await withCheckedContinuation { continuation in
      let known = snapshot.withLock { snap -> Result<Void, RedisError>? in
        if let outcome = snap.firstOutcome { return outcome }
        snap.waiters.append(continuation)
        return nil
      }
      if let known { continuation.resume(returning: known) }
    }
  }
}
