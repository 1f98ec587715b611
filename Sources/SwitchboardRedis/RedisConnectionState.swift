/// Where a Redis connection is in its life. Changes only through checked transitions:
///
/// ```
///   idle ──▶ connecting ──▶ handshaking ──▶ ready
///               ▲  │            │            │  lost, timed out, refused
///               │  └────────────┴────────────┴──────▶ backingOff
///               │                                          │ after the delay
///               └──────────────────────────────────────────┘
///   any state ──▶ closed (close(); final)
/// ```
public enum RedisConnectionState: Sendable, Hashable, CustomStringConvertible {
  /// Made, not started yet.
  case idle
  /// Resolving and opening the TCP connection (and TLS) — `attempt` counts from 1 since the
  /// last time the connection was ready.
  case connecting(attempt: Int)
  /// Connected; `HELLO`/`AUTH`/`SELECT` (and a subscriber's re-subscriptions) in flight.
  case handshaking(attempt: Int)
  /// Commands flow. `protocolVersion` is 3 or 2, as negotiated.
  case ready(protocolVersion: Int)
  /// The last attempt failed or the connection was lost; the next attempt starts after the
  /// back-off delay.
  case backingOff(attempt: Int, delay: Duration)
  /// Closed for good.
  case closed

  /// Whether the state may change from `self` to `next`.
  public func allows(_ next: RedisConnectionState) -> Bool {
    switch (self, next) {
    case (.closed, _): false
    case (_, .closed): true
    case (.idle, .connecting): true
    case (.connecting, .handshaking), (.connecting, .backingOff): true
    case (.handshaking, .ready), (.handshaking, .backingOff): true
    case (.ready, .backingOff): true
    case (.backingOff, .connecting): true
    default: false
    }
  }

  /// `true` while commands can be sent.
  public var isReady: Bool {
    if case .ready = self { return true }
    return false
  }

  /// The state in words, for logs.
  public var description: String {
    switch self {
    case .idle: "idle"
    case .connecting(let attempt): "connecting (attempt \(attempt))"
    case .handshaking(let attempt): "handshaking (attempt \(attempt))"
    case .ready(let version): "ready (RESP\(version))"
    case .backingOff(let attempt, let delay): "backing off \(delay) before attempt \(attempt)"
    case .closed: "closed"
    }
  }
}
