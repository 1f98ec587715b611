import SwitchboardIO

extension EventLoop {
  /// ``scheduleLocal(after:_:)`` at a deadline (at once when it has passed).
  package func scheduleLocal(at deadline: Deadline, _ task: @escaping () -> Void) -> Scheduled {
    let now = Deadline.now()
    let delay: Duration = deadline > now ? .nanoseconds(Int64(deadline.nanoseconds - now.nanoseconds)) : .zero
    return scheduleLocal(after: delay, task)
  }
}
