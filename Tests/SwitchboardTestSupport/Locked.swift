import Synchronization

/// A value behind a mutex, readable and writable from any thread.
public final class Locked<Value: Sendable>: Sendable {
  private let mutex: Mutex<Value>
  public init(_ value: Value) { mutex = Mutex(value) }
  public func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R {
    mutex.withLock { value in body(&value) }
  }
  public var value: Value { withLock { $0 } }
}
