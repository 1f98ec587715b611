import SwitchboardChat
import SwitchboardIO
import SwitchboardTLS

extension WebSocketSession {
  /// Runs one incoming data message of `bytes` bytes through `--max-message-rate` and
  /// `--max-byte-rate` and counts the refusals.
  /// - Returns: the verdict, and which limit gave it when it is not `accept`.
  /// Also notes the time for `--idle-timeout` (with no limit state, nothing is limited).
  func judgeMessage(bytes: Int) -> (MessageRateLimiter.Verdict, MessageRateLimiter.Unit) {
    guard let limits = limitState else { return (.accept, .messages) }
    let now = Deadline.now()
    limits.lastData = now
    let (verdict, unit) = MessageRateLimiter.judge(
      messages: &limits.rateLimit, bytes: &limits.byteLimit, cost: bytes, now: now.nanoseconds,
      metrics: context.metrics.limits)
    if verdict == .close {
      context.logger.notice(
        "closed a flooding connection",
        metadata: .connection(
          peer: connection.remoteAddress, member: memberID, dialect: "websocket", error: unit.closeReason))
    }
    return (verdict, unit)
  }

  /// Arms the `--idle-timeout` check: it fires `delay` from now and, when no data message
  /// arrived for the whole timeout, sends a JSON `idle_timeout` error (JSON dialect) and
  /// closes with 1008 "idle too long"; else it re-arms for the rest. Pings and pongs are not
  /// activity: a tab left open answers pings by itself.
  func armIdle(after delay: Duration) {
    // The limit state exists whenever `--idle-timeout` is set (SessionLimitState.make).
    limitState?.idleTimer = context.loop.scheduleLocal(after: delay) { [context, memberID] in
      guard let self = context.sessions[memberID] as? WebSocketSession,
        let timeout = context.configuration.limits.idleTimeout, let limits = self.limitState
      else { return }
      if let left = ServerLimits.idleTimeLeft(since: limits.lastData, timeout: timeout) {
        self.armIdle(after: left)
        return
      }
      context.metrics.limits.idleTimeouts.add(1, ordering: .relaxed)
      context.logger.info(
        "closed an idle connection",
        metadata: .connection(peer: self.connection.remoteAddress, member: memberID, dialect: "websocket"))
      self.refuse(code: "idle_timeout", answer: Self.idleAnswer)
    }
  }

  /// The reason of the idle close (and the message of its JSON error).
  static let idleAnswer = "idle too long"
}
