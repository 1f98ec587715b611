/// A value that belongs to one event loop, held by code that may run anywhere.
///
/// Objects that live on a loop — connections, sessions, their per-loop state — are not
/// `Sendable`, yet `@Sendable` closures and `Sendable` types on other threads need to hold
/// them: to hand work to the loop with ``EventLoop/execute(_:)``, to close a connection
/// from a `deinit`. A `LoopBound` is `Sendable` whatever its value, and ``value`` traps
/// unless it is used on ``loop``'s thread, so the value is only ever touched there. Like
/// SwiftNIO's `NIOLoopBoundBox`; a class, so holders share one value (and may hold it
/// weakly).
///
/// ```swift
/// let channel = LoopBound(sending: LineChannel(loop: loop), on: loop)  // any thread
/// loop.execute { channel.value.start() }                                // on the loop
/// ```
public final class LoopBound<Value>: @unchecked Sendable {
  // Safety: `storage` is read and written only through `value`, which traps unless it runs
  // on `loop`'s thread, so only that one thread ever touches the value. A box is made on
  // that thread (`init(_:on:)` checks) or from a value the caller hands over whole
  // (`init(sending:on:)`: `sending` means no other reference to it is left behind).
  // `loop` is immutable and `Sendable`.

  /// The loop the value belongs to.
  public let loop: EventLoop
  private var storage: Value

  /// Binds `value`, which already lives on `loop`, to it. Loop thread only.
  public init(_ value: Value, on loop: EventLoop) {
    loop.assertInEventLoop()
    self.loop = loop
    self.storage = value
  }

  /// Binds `value` to `loop` from any thread; the caller hands the value over and keeps no
  /// other reference to it (for a value built off the loop, such as a new connection's
  /// handler).
  public init(sending value: sending Value, on loop: EventLoop) {
    self.loop = loop
    self.storage = value
  }

  /// The value; reading or replacing it traps off the loop's thread.
  public var value: Value {
    get {
      loop.assertInEventLoop()
      return storage
    }
    set {
      loop.assertInEventLoop()
      storage = newValue
    }
  }
}
