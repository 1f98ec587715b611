/// One member's typing state as its session keeps it (docs/PROTOCOLS.md, "Typing"): a pure
/// value, times in milliseconds from the caller's clock, so that the rate limit and the
/// expiry are decided without a timer or a socket.
///
/// - At most one typing event is relayed per member per ``minimumInterval``; a `typing`
///   frame inside it is dropped (and counted by the caller), except a stop after a relayed
///   start, which is never dropped: a start must not be left without its end.
/// - An active state ends on its own ``expiry`` after the last relayed start; the session
///   asks ``expire(now:)`` when its timer fires.
/// - Sending a message, leaving the room or disconnecting end it (``end()``).
public struct TypingState: Sendable, Equatable {
  /// What the session does with a `typing` frame or an end.
  public enum Decision: Equatable, Sendable {
    /// Relay the event (`active`) and, for a start, arm the expiry timer for `expiresAt`.
    case relay(active: Bool, expiresAt: Int64?)
    /// Nothing to relay: the state is already that one (a stop while not typing).
    case none
    /// Dropped by the rate limit (counted, no error frame).
    case dropped
  }

  /// Whether the member is shown as typing.
  public enum Phase: Sendable, Equatable {
    case idle
    /// Typing: ends by itself at `expiresAt` (the last relayed start + ``expiry``).
    case active(expiresAt: Int64)
  }

  /// A typing state ends this long after the last relayed start.
  public static let expiry: Int64 = 5_000
  /// At most one event is relayed per member in this long.
  public static let minimumInterval: Int64 = 1_000

  public private(set) var phase: Phase = .idle
  /// When the last event was relayed (`nil`: never).
  private var lastRelayed: Int64? = nil

  public init() {}

  /// Whether the member is shown as typing (one branch on the publish path).
  @inlinable
  public var isActive: Bool {
    if case .active = phase { return true }
    return false
  }

  /// A `typing` frame (or the line dialect's `/typing`) at `now`.
  public mutating func signal(active: Bool, now: Int64) -> Decision {
    if !active {
      // A stop ends a shown start at once (not rate limited); one while idle is nothing.
      return end()
    }
    if let last = lastRelayed, now - last < Self.minimumInterval { return .dropped }
    lastRelayed = now
    let expiresAt = now + Self.expiry
    phase = .active(expiresAt: expiresAt)
    return .relay(active: true, expiresAt: expiresAt)
  }

  /// The member sent a message, left the room or disconnected: a shown start ends.
  public mutating func end() -> Decision {
    guard isActive else { return .none }
    phase = .idle
    return .relay(active: false, expiresAt: nil)
  }

  /// The expiry timer fired at `now`: the state ends if its last start is that old (a
  /// later start moved the expiry on, and its own timer ends it).
  public mutating func expire(now: Int64) -> Decision {
    guard case .active(let expiresAt) = phase, now >= expiresAt else { return .none }
    phase = .idle
    return .relay(active: false, expiresAt: nil)
  }
}
