import SwitchboardIO

extension LoopBound where Value == LoopContext {
  /// Runs `body` with the context on its loop and waits for the result (never call from
  /// the loop: it would wait for itself).
  func run<T: Sendable>(
    _ body: @escaping @Sendable (LoopContext) throws(IOError) -> T
  ) -> Result<T, IOError> {
    precondition(!loop.inEventLoop, "run would deadlock on the loop's own thread")
    let bound = self
    return Result { () throws(IOError) -> T in
      try loop.runAndWait { () throws(IOError) -> T in try body(bound.value) }
    }
  }
}
