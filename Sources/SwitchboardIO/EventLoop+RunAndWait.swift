import Dispatch

extension EventLoop {
  /// Runs `body` on the loop and waits for its result, at once when already on the loop:
  /// the one way a thread outside the loop borrows it for a moment (a server starting its
  /// listeners, discovery's calls, tests). Never call it from the loop of another caller
  /// that this one waits for.
  package func runAndWait<R, E: Error>(_ body: @escaping () throws(E) -> R) throws(E) -> R {
    // The deadline never passes, so the result is there (an optional `R` stays wrapped).
    try runAndWait(until: .distantFuture, body)!
  }

  /// ``runAndWait(_:)`` that stops waiting after `timeout` and returns `nil` then (the body
  /// still runs when the loop gets to it): for tests, which must fail at a deadline rather
  /// than hang on a stuck loop.
  package func runAndWait<R, E: Error>(
    timeout: Duration, _ body: @escaping () throws(E) -> R
  ) throws(E) -> R? {
    let (seconds, attoseconds) = timeout.components
    let nanoseconds = Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
    return try runAndWait(until: .now() + .nanoseconds(max(0, nanoseconds)), body)
  }

  private func runAndWait<R, E: Error>(
    until deadline: DispatchTime, _ body: @escaping () throws(E) -> R
  ) throws(E) -> R? {
    if inEventLoop { return try body() }
    let handoff = Handoff<R, E>()
    // Safety: `body` runs exactly once, on the loop, while this thread waits for it or has
    // stopped waiting (then nothing reads what it leaves).
    nonisolated(unsafe) let work = body
    execute {
      handoff.result = Result { () throws(E) -> R in try work() }
      handoff.done.signal()
    }
    guard handoff.done.wait(timeout: deadline) == .success else { return nil }
    return try handoff.result!.get()
  }
}

/// A result handed from the loop back to the thread waiting for it.
private final class Handoff<Value, Failure: Error>: @unchecked Sendable {
  // Safety: `result` is written once on the loop before `done` is signalled and read only
  // by the waiter after the signal.
  var result: Result<Value, Failure>?
  let done = DispatchSemaphore(value: 0)
}
