import SwitchboardChat
import SwitchboardIO

/// The hub runs each shard's deliveries on the shard's event loop. A room's messages of
/// one iteration share a task (``ShardExecutor/taskStamp``): the stamp is the count of
/// tasks `execute` queued, and delivery tasks are queued without counting.
extension EventLoop: ShardExecutor {
  public var taskStamp: UInt64? { executedTaskCount }

  public func executeDelivery(_ task: @escaping @Sendable () -> Void) {
    executeUncounted(task)
  }
}
