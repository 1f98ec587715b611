import Dispatch

/// Runs a ``ChatHub``'s delayed work: the check that drops a room once it has had no member
/// for ``HubConfiguration/roomIdleGrace``. The default, ``DispatchHubTimer``, waits in real
/// time; a test gives one it advances by hand, so that "dropped after the grace" and "kept
/// within it" are checked without racing a clock.
public protocol HubTimer: Sendable {
  /// Runs `action` once, `delay` from now (never earlier), on any thread. Called with the
  /// hub's room lock held: only queue the action here, never run it.
  func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void)
}

/// The default ``HubTimer``: Dispatch's global queue, on the wall clock's monotonic time.
public struct DispatchHubTimer: HubTimer {
  public init() {}

  public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) {
    let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: action)
  }
}
