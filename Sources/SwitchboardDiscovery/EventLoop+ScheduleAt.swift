import Dispatch
import SwitchboardIO

extension EventLoop {
  /// Runs `body` on the loop and waits for its result (at once when already on the loop).
  /// Never from the loop of another caller that this one waits for.
  package func runAndWait<R>(_ body: @escaping () -> R) -> R {
    if inEventLoop { return body() }
    let box = ResultBox<R>()
    let done = DispatchSemaphore(value: 0)
    // Safety: `body` runs exactly once on the loop while this thread waits for it.
    nonisolated(unsafe) let work = body
    execute {
      box.value = work()
      done.signal()
    }
    done.wait()
    return box.value!
  }
}

/// A value handed from the loop back to a waiting thread.
private final class ResultBox<Value>: @unchecked Sendable {
  // Safety: written once on the loop before the semaphore is signalled, read after the wait.
  var value: Value?
}

extension EventLoop {
  /// ``scheduleLocal(after:_:)`` at a deadline (at once when it has passed).
  package func scheduleLocal(at deadline: Deadline, _ task: @escaping () -> Void) -> Scheduled {
    let now = Deadline.now()
    let delay: Duration = deadline > now ? .nanoseconds(Int64(deadline.nanoseconds - now.nanoseconds)) : .zero
    return scheduleLocal(after: delay, task)
  }
}
