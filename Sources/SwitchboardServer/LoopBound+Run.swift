import Dispatch
import SwitchboardIO
import Synchronization

extension LoopBound where Value == LoopContext {
  /// Runs `body` with the context on its loop and waits for the result (never call from
  /// the loop: it would wait for itself).
  func run<T: Sendable>(
    _ body: @escaping @Sendable (LoopContext) throws(IOError) -> T
  ) -> Result<T, IOError> {
    precondition(!loop.inEventLoop, "run would deadlock on the loop's own thread")
    let slot = ResultSlot<T>()
    let done = DispatchSemaphore(value: 0)
    loop.execute { [self] in
      let outcome: Result<T, IOError>
      do throws(IOError) {
        outcome = .success(try body(value))
      } catch {
        outcome = .failure(error)
      }
      slot.result.withLock { $0 = outcome }
      done.signal()
    }
    done.wait()
    return slot.result.withLock { $0! }
  }
}

/// Where the loop leaves `run`'s result for the thread waiting on it.
private final class ResultSlot<T: Sendable>: Sendable {
  let result = Mutex<Result<T, IOError>?>(nil)
}
