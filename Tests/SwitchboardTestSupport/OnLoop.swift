import SwitchboardIO

/// Runs `body` on `loop` and returns its result, waiting at most `timeout`: a stuck loop
/// fails the test instead of hanging it.
@discardableResult
public func onLoop<T: Sendable>(
  _ loop: EventLoop, timeout: Duration = .seconds(10), _ body: @escaping @Sendable () throws -> T
) throws -> T {
  guard let result = try loop.runAndWait(timeout: timeout, body) else {
    throw TestFailure("event loop \(loop.index) did not run a task within \(timeout)")
  }
  return result
}
