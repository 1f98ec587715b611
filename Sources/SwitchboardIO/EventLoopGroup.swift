import Synchronization

/// A fixed set of event loops, one per core by default, handed out round-robin.
public final class EventLoopGroup: Sendable {
  /// The loops, indexed from 0.
  public let loops: [EventLoop]
  private let cursor = Atomic<Int>(0)

  /// Starts `count` loops (default: one per active core) on `backend`.
  /// - Throws: ``IOError`` when a selector cannot be created.
  public convenience init(count: Int = System.coreCount, backend: SelectorBackend = .platformDefault) throws(IOError) {
    try self.init(count: count, backend: backend, sendRingEntries: EventLoop.defaultRingEntries)
  }

  /// `sendRingEntries`: see ``EventLoop``'s internal initialiser (tests).
  init(count: Int, backend: SelectorBackend, sendRingEntries: Int) throws(IOError) {
    var loops: [EventLoop] = []
    for i in 0..<max(1, count) {
      do {
        loops.append(try EventLoop(index: i, backend: backend, sendRingEntries: sendRingEntries))
      } catch {
        for loop in loops { loop.shutdownGracefully() }
        throw error
      }
    }
    self.loops = loops
  }

  /// The next loop in round-robin order.
  public func next() -> EventLoop {
    let i = cursor.add(1, ordering: .relaxed).oldValue
    return loops[i % loops.count]
  }

  /// Stops every loop and waits for their threads.
  public func shutdownGracefully() {
    for loop in loops { loop.shutdownGracefully() }
  }
}
