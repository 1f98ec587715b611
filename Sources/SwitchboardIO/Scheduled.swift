import Synchronization

/// A scheduled task that can be cancelled from any thread.
public final class Scheduled: Sendable {
  let cancelledFlag = Atomic<Bool>(false)
  /// Stops the task from running (again). Safe from any thread; a task already running
  /// finishes.
  public func cancel() { cancelledFlag.store(true, ordering: .relaxed) }
  /// Whether ``cancel()`` was called.
  public var isCancelled: Bool { cancelledFlag.load(ordering: .relaxed) }
}
