import SwitchboardIO

/// RFC 6762 §8.1's brake on probing: once `limit` conflicts happened within `window`, every
/// further round of probing starts `pause` after the conflict instead of at once, so two
/// hosts that keep taking each other's names cannot flood the link.
struct MDNSConflictRateLimit: Sendable {
  let limit: Int
  let window: Duration
  let pause: Duration
  /// The times of the last `limit` conflicts, oldest first.
  private var recent: [Deadline] = []

  init(limit: Int, window: Duration, pause: Duration) {
    self.limit = max(limit, 1)
    self.window = window
    self.pause = pause
  }

  /// Notes a conflict at `now`; returns when the probing it causes may start.
  mutating func conflict(at now: Deadline) -> Deadline {
    recent.append(now)
    if recent.count > limit { recent.removeFirst(recent.count - limit) }
    guard recent.count == limit, now < recent[0].adding(window) else { return now }
    return now.adding(pause)
  }
}
