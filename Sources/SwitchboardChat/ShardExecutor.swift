/// Runs work on the thread that owns a shard (an event loop, in the server).
public protocol ShardExecutor: Sendable {
  /// Runs `task` on the owning thread, in submission order.
  func execute(_ task: @escaping @Sendable () -> Void)
  /// Whether more tasks wait behind the one running now. Asked on the owning thread while
  /// a delivery runs: when nothing else is queued, members may send at once instead of
  /// waiting for a batched flush (see ``EncodingCache/sendNow``). Defaults to `true`.
  var hasPendingTasks: Bool { get }
  /// A number that changes whenever ``execute(_:)`` queues a task, readable from any
  /// thread; `nil` (the default) when the executor keeps none.
  ///
  /// The hub uses it to put a room's messages into a delivery task that is already queued
  /// (one task, and one write per member, for all the messages one loop iteration
  /// published to the room): it adds a message to that task only while the stamp is what
  /// it was when the task was queued, that is, while no task has been queued behind it —
  /// so the message still runs after everything queued before it and before everything
  /// queued after it, as a task of its own would. Without a stamp every message is a task.
  var taskStamp: UInt64? { get }
  /// Runs `task` like ``execute(_:)``, in submission order, but leaves ``taskStamp`` as
  /// it is, so that messages posted later may still join a delivery task queued before
  /// it. For the hub's room-delivery tasks, which other rooms' messages may pass (a member
  /// is in one room at a time, so no member sees the difference), and for the local
  /// broker's publish answers (an `ack` follows its own message, as the protocol says; it
  /// may also follow messages published after it). The default calls ``execute(_:)``.
  func executeDelivery(_ task: @escaping @Sendable () -> Void)
}

extension ShardExecutor {
  public var hasPendingTasks: Bool { true }
  public var taskStamp: UInt64? { nil }
  public func executeDelivery(_ task: @escaping @Sendable () -> Void) { execute(task) }
}
