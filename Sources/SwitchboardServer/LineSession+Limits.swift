import SwitchboardIO
import SwitchboardTLS

extension LineSession {
  /// Applies `--max-message-rate` and `--max-byte-rate` to one incoming line of `bytes`
  /// bytes. Refused: `! slow down …`; refused persistently: `! too many messages,
  /// disconnected` (or `too many bytes`), the session leaves its room, and the connection
  /// half-closes (closed at the peer's EOF, or after two seconds).
  /// - Returns: whether the line may be handled.
  func admitMessage(bytes: Int) -> Bool {
    guard !closing else { return false }
    let (verdict, unit) = MessageRateLimiter.judge(
      messages: &rateLimit, bytes: &byteLimit, cost: bytes, now: Deadline.now().nanoseconds,
      metrics: context.metrics.limits)
    switch verdict {
    case .accept:
      return true
    case .refuse:
      reply("! " + unit.refusal(limit: unit.limit(in: context.configuration.limits)))
      return false
    case .close:
      context.logger.notice(
        "closed a flooding connection",
        metadata: .connection(
          peer: connection.remoteAddress, member: memberID, dialect: "line", error: unit.closeReason))
      reply("! " + unit.closeLine)
      leaveAndHalfClose()
      return false
    }
  }

  /// Arms the `--idle-timeout` check: it fires `delay` from now and closes the connection
  /// when nothing was read for the whole timeout, else re-arms for the rest.
  func armIdle(after delay: Duration) {
    idleTimer = context.loop.scheduleLocal(after: delay) { [context, memberID] in
      guard let self = context.sessions[memberID] as? LineSession, !self.closing,
        let timeout = context.configuration.limits.idleTimeout
      else { return }
      if let left = ServerLimits.idleTimeLeft(since: self.lastRead, timeout: timeout) {
        self.armIdle(after: left)
        return
      }
      context.metrics.limits.idleTimeouts.add(1, ordering: .relaxed)
      self.reply("! idle too long, disconnected")
      self.leaveAndHalfClose()
    }
  }

  /// Ends the membership and sends a FIN after what is queued, so the last line arrives
  /// even while the peer is still sending.
  private func leaveAndHalfClose() {
    detach()
    let connection = self.connection
    connection.shutdownOutput()
    _ = context.loop.scheduleLocal(after: RefusedConnection.graceTime) { connection.close() }
  }
}
