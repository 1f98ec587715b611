import Synchronization

/// The wait of a connect whose outcome arrives by callback (Network.framework's
/// `stateUpdateHandler`): ``wait(timeout:timeoutReason:cancel:)`` returns on the first of
/// ``open()``, ``fail(_:)``, the deadline, or the waiting task's cancellation; later outcomes
/// are ignored. Shared, so that the Apple transports only map their callbacks onto it.
final class ConnectGate: Sendable {
  private enum State {
    /// Nobody waits yet; an outcome that comes first is kept.
    case pending(Result<Void, ChatClientError>?)
    /// The connect waits.
    case waiting(CheckedContinuation<Result<Void, ChatClientError>, Never>)
    /// Decided.
    case done
  }

  private let state = Mutex(State.pending(nil))

  /// The connection is usable.
  func open() { settle(.success(())) }

  /// The connect failed.
  func fail(_ error: ChatClientError) { settle(.failure(error)) }

  /// Waits for the outcome. Past `timeout` it fails with ``ChatClientError/timeout(_:)``
  /// saying `timeoutReason`; cancelled, with ``ChatClientError/closed(_:)``. `cancel` runs
  /// when the wait ends in either (give up connecting).
  func wait(timeout: Duration, timeoutReason: String, cancel: @escaping @Sendable () -> Void) async throws(ChatClientError) {
    let deadline = Task { [weak self] in
      try? await Task.sleep(for: timeout)
      guard !Task.isCancelled, let self else { return }
      self.giveUp(.timeout(timeoutReason), cancel: cancel)
    }
    defer { deadline.cancel() }
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { (done: CheckedContinuation<Result<Void, ChatClientError>, Never>) in
        let early = state.withLock { s -> Result<Void, ChatClientError>? in
          switch s {
          case .pending(let outcome?):
            s = .done
            return outcome
          case .pending(nil):
            s = .waiting(done)
            return nil
          case .waiting, .done:
            return .failure(.closed("waited twice"))
          }
        }
        if let early { done.resume(returning: early) }
      }
    } onCancel: {
      self.giveUp(.closed("cancelled"), cancel: cancel)
    }
    try result.get()
  }

  /// Ends the wait with `error` unless it is decided, running `cancel` first: the connect is
  /// given up by the time the waiter sees the error.
  private func giveUp(_ error: ChatClientError, cancel: () -> Void) {
    let (decided, waiter) = decide(.failure(error))
    if decided { cancel() }
    waiter?.resume(returning: .failure(error))
  }

  /// Decides the outcome unless it is decided.
  private func settle(_ outcome: Result<Void, ChatClientError>) {
    decide(outcome).waiter?.resume(returning: outcome)
  }

  /// Records `outcome` unless one is decided; whether this call decided it, and the waiter
  /// to resume (outside the lock).
  private func decide(_ outcome: Result<Void, ChatClientError>)
    -> (decided: Bool, waiter: CheckedContinuation<Result<Void, ChatClientError>, Never>?)
  {
    state.withLock { s -> (Bool, CheckedContinuation<Result<Void, ChatClientError>, Never>?) in
      switch s {
      case .pending(nil):
        s = .pending(outcome)
        return (true, nil)
      case .waiting(let done):
        s = .done
        return (true, done)
      case .pending(.some), .done:
        return (false, nil)
      }
    }
  }
}
