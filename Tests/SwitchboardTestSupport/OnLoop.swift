import SwitchboardIO

/// Runs `body` on `loop` and returns its result, waiting at most `timeout`.
@discardableResult
public func onLoop<T: Sendable>(
  _ loop: EventLoop, timeout: Duration = .seconds(10), _ body: @escaping @Sendable () throws -> T
) throws -> T {
  let result = Locked<Result<T, any Error>?>(nil)
  let done = Signal()
  loop.execute {
    let outcome = Result { try body() }
    result.withLock { $0 = outcome }
    done.fire()
  }
  guard done.wait(timeout: timeout) else {
    throw TestFailure("event loop \(loop.index) did not run a task within \(timeout)")
  }
  return try result.value!.get()
}
