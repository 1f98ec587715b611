import Dispatch
import SwitchboardIO

/// A one-shot event another thread signals and the test waits for with a deadline.
public final class Signal: Sendable {
  private let semaphore = DispatchSemaphore(value: 0)
  public init() {}
  public func fire() { semaphore.signal() }
  /// `true` when the signal fired within `timeout`.
  public func wait(timeout: Duration = .seconds(10)) -> Bool {
    semaphore.wait(timeout: .now() + .nanoseconds(Int(timeout.nanoseconds))) == .success
  }
}
