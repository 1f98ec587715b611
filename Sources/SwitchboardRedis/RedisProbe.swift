/// The check that the broker's pub/sub connection still delivers: a pure value type, tested
/// without Redis (`RedisProbeTests`).
///
/// Every probe interval the broker publishes a token on its node-private probe channel
/// (`sb:probe:<node>`, to which its own subscriber is subscribed) over the *command*
/// connection. Redis's answer to that `PUBLISH` shows the command path works and says how
/// many subscribers got it; the token arriving on the subscriber shows the pub/sub path
/// works. A connection that stays `ready` but delivers nothing — a stalled path, a proxy
/// that stopped forwarding, a server-side buffer limit gone wrong — is found when the token
/// has not come back within the probe timeout of the answer, or when Redis answers that
/// nobody was subscribed.
///
/// ```
/// idle ──start()──▶ published(token) ──answered(n > 0)──▶ awaiting(token) ──arrived──▶ idle
///                        │    └──arrived(token)──▶ idle        │ expired(token)
///                        │ answered(0): replace                 ▼ replace
///                        └ commandFailed ──▶ idle (the command connection has its own timeouts)
/// ```
struct RedisProbe: Sendable {
  enum Phase: Sendable, Hashable {
    /// No probe outstanding.
    case idle
    /// Published; Redis has not answered yet (the token may arrive before the answer).
    case published(token: UInt64)
    /// Redis answered; the token has yet to arrive on the subscriber.
    case awaiting(token: UInt64)
  }

  /// What an event asks of the broker.
  enum Verdict: Sendable, Hashable {
    /// Nothing to do.
    case none
    /// Wait the probe timeout for this token, then call ``expired(token:)``.
    case await(token: UInt64)
    /// The pub/sub connection is silent: replace it (the reason is for the log line).
    case replace(reason: String)
  }

  private(set) var phase = Phase.idle
  private var lastToken: UInt64 = 0

  /// A new probe, or `nil` while one is outstanding (a slow answer is not stacked on).
  mutating func start() -> UInt64? {
    guard phase == .idle else { return nil }
    lastToken += 1
    phase = .published(token: lastToken)
    return lastToken
  }

  /// Redis answered the `PUBLISH` of `token`: `receivers` subscribers got it.
  mutating func answered(token: UInt64, receivers: Int) -> Verdict {
    guard phase == .published(token: token) else { return .none }
    guard receivers > 0 else {
      phase = .idle
      return .replace(reason: "Redis has no subscriber for this node's probe channel")
    }
    phase = .awaiting(token: token)
    return .await(token: token)
  }

  /// The `PUBLISH` failed: the command connection is in trouble, which its own timeouts
  /// handle; no verdict on the subscriber.
  mutating func commandFailed(token: UInt64) {
    if phase == .published(token: token) { phase = .idle }
  }

  /// `token` came back on the subscriber.
  mutating func arrived(token: UInt64) {
    switch phase {
    case .published(token), .awaiting(token): phase = .idle
    default: break
    }
  }

  /// The probe timeout after the answer to `token` passed.
  mutating func expired(token: UInt64) -> Verdict {
    guard phase == .awaiting(token: token) else { return .none }
    phase = .idle
    return .replace(reason: "no probe came back within the probe timeout")
  }

  /// The subscriber connection was lost or replaced: an outstanding probe means nothing now.
  mutating func reset() {
    phase = .idle
  }
}
