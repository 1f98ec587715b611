import SwitchboardChat
import Synchronization

/// A ``HubTimer`` whose time moves only when the test says: ``advance(by:)`` runs, in due
/// order, every action whose delay has then passed, on the test's thread.
final class ManualHubTimer: HubTimer {
  private struct Pending {
    let due: Duration
    let order: Int
    let action: @Sendable () -> Void
  }

  private struct State {
    var now = Duration.zero
    var scheduled = 0
    var pending: [Pending] = []
  }

  private let state = Mutex(State())

  func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) {
    state.withLock { s in
      s.pending.append(Pending(due: s.now + delay, order: s.scheduled, action: action))
      s.scheduled += 1
    }
  }

  /// Actions scheduled and not yet run.
  var pendingCount: Int { state.withLock { $0.pending.count } }

  /// Moves time on by `step` and runs what became due (outside the lock: an action may
  /// schedule another).
  func advance(by step: Duration) {
    let due = state.withLock { s -> [Pending] in
      s.now += step
      let now = s.now
      let due = s.pending.filter { $0.due <= now }.sorted { ($0.due, $0.order) < ($1.due, $1.order) }
      s.pending.removeAll { $0.due <= now }
      return due
    }
    for p in due { p.action() }
  }
}
