/// Runs work on the thread that owns a shard (an event loop, in the server).
public protocol ShardExecutor: Sendable {
  /// Runs `task` on the owning thread, in submission order.
  func execute(_ task: @escaping @Sendable () -> Void)
  /// Whether more tasks wait behind the one running now. Asked on the owning thread while
  /// a delivery runs: when nothing else is queued, members may send at once instead of
  /// waiting for a batched flush (see ``EncodingCache/sendNow``). Defaults to `true`.
  var hasPendingTasks: Bool { get }
}

extension ShardExecutor {
  public var hasPendingTasks: Bool { true }
}
