import Synchronization

/// Wakes a ``ChatClient``'s connection loop from any thread: the loop's waits (the backoff
/// before a reconnect, a suspension, a wait for the network) end on ``ring()`` instead of
/// being polled.
///
/// A ring is counted, not latched: the loop reads ``generation`` before it looks at the
/// client's state, and ``wait(since:until:)`` returns at once when a ring came in between,
/// so a ring cannot be lost between the look and the wait. Whoever changes the state rings
/// after the change, and before closing a connection, so that the loop sees the ring when
/// the connection ends.
final class ChatWakeup: Sendable {
  private struct State {
    var generation: UInt64 = 0
    var nextSleeper: UInt64 = 0
    var sleepers: [UInt64: CheckedContinuation<Void, Never>] = [:]
  }

  private let state = Mutex(State())

  /// How many rings so far.
  var generation: UInt64 { state.withLock { $0.generation } }

  /// Wakes every wait, and any wait that starts with an older generation.
  func ring() {
    let sleepers = state.withLock { s in
      s.generation &+= 1
      defer { s.sleepers = [:] }
      return Array(s.sleepers.values)
    }
    for sleeper in sleepers { sleeper.resume() }
  }

  /// Waits until a ring after generation `seen`, until `deadline` (`nil`: no deadline), or
  /// until the calling task is cancelled, whichever comes first.
  /// - Returns: Whether a ring ended the wait.
  @discardableResult
  func wait(since seen: UInt64, until deadline: ContinuousClock.Instant?) async -> Bool {
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.ringing(since: seen) }
      if let deadline { group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) } }
      await group.next()
      group.cancelAll()
    }
    return generation != seen
  }

  private func ringing(since seen: UInt64) async {
    let id = state.withLock { s -> UInt64 in
      s.nextSleeper &+= 1
      return s.nextSleeper
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (sleeper: CheckedContinuation<Void, Never>) in
        let now = state.withLock { s -> Bool in
          // A cancellation handler that ran before this found nothing to resume.
          if s.generation != seen || Task.isCancelled { return true }
          s.sleepers[id] = sleeper
          return false
        }
        if now { sleeper.resume() }
      }
    } onCancel: {
      state.withLock { $0.sleepers.removeValue(forKey: id) }?.resume()
    }
  }
}
