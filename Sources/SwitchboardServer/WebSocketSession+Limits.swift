import SwitchboardIO

extension WebSocketSession {
  /// Runs one incoming data message through `--max-message-rate` and counts the refusals.
  func judgeMessage() -> MessageRateLimiter.Verdict {
    guard var limiter = rateLimit else { return .accept }
    let verdict = limiter.admit(now: Deadline.now().nanoseconds)
    rateLimit = limiter
    let limits = context.metrics.limits
    if verdict != .accept { limits.messagesRateLimited.add(1, ordering: .relaxed) }
    if verdict == .close {
      limits.rateLimitCloses.add(1, ordering: .relaxed)
      context.logger.notice(
        "closed a flooding connection",
        metadata: .connection(peer: connection.remoteAddress, member: memberID, dialect: "websocket", error: "rate limit"))
    }
    return verdict
  }
}
