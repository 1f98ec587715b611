import SwitchboardIO

/// A value that lives on one event loop, held by `Sendable` code that only reaches it
/// on that loop (inside `loop.execute`).
final class LoopBound<Value: AnyObject>: @unchecked Sendable {
  // Safety: `storage` is only read through `value`, which traps unless called on
  // `loop`'s thread. The reference itself is immutable, so passing the box between
  // threads shares nothing mutable.
  let loop: EventLoop
  private let storage: Value

  init(_ value: Value, loop: EventLoop) {
    self.storage = value
    self.loop = loop
  }

  /// The value; traps off the loop's thread.
  var value: Value {
    loop.assertInEventLoop()
    return storage
  }
}
