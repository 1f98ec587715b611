#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// The way these tests wait for something to happen: poll a condition until a deadline,
// never sleep a fixed time and hope. A deadline is a bound on failure, not a pace: a
// passing test waits only as long as the event takes, so deadlines are generous (the
// machine is shared and runs every suite at once).

/// The default deadline of ``eventually(timeout:_:)``: a bound on a failure, reached only
/// when the awaited event never comes. Generous, because a full run starts hundreds of
/// tests at once on a few cores (threads, child processes spawned one at a time, malloc's
/// arenas contended), and there a connect that takes milliseconds alone can take seconds.
public let defaultDeadline: Duration = .seconds(60)

/// Polls `condition` every millisecond until it holds (`true`) or `timeout` passes
/// (`false`), for synchronous tests.
public func eventually(timeout: Duration = defaultDeadline, _ condition: () throws -> Bool) rethrows -> Bool {
  let clock = ContinuousClock()
  let deadline = clock.now.advanced(by: timeout)
  while true {
    if try condition() { return true }
    if clock.now >= deadline { return false }
    usleep(1000)
  }
}

/// Polls `condition` every 10 ms until it holds; throws a ``TestFailure`` naming `what`
/// once `timeout` passes.
///
/// Runs on the caller's actor (`isolation`), so a test on the main actor may poll state that
/// lives there.
public func eventually(
  isolation: isolated (any Actor)? = #isolation, timeout: Duration = defaultDeadline,
  _ what: @autoclosure () -> String = "condition", _ condition: () throws -> Bool
) async throws {
  let deadline = ContinuousClock.now.advanced(by: timeout)
  while try !condition() {
    guard ContinuousClock.now < deadline else {
      throw TestFailure("timed out after \(timeout) waiting for \(what())")
    }
    try await Task.sleep(for: .milliseconds(10))
  }
}

/// Runs `body`, failing with a ``TestFailure`` (and cancelling it) if it takes longer
/// than `timeout`.
public func withTimeout<T: Sendable>(
  _ timeout: Duration = .seconds(30), _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
  try await withThrowingTaskGroup(of: T.self) { group in
    group.addTask { try await body() }
    group.addTask {
      try await Task.sleep(for: timeout)
      throw TestFailure("timed out after \(timeout)")
    }
    defer { group.cancelAll() }
    return try await group.next()!
  }
}
