/// Whether a ``RoomBroker`` can do its work now: what `GET /readyz` reports.
///
/// The local broker is always ``ready``. A cluster broker is ``unavailable(since:reason:)``
/// while its shared server cannot be reached (publishes then wait or fail), so a load
/// balancer can send new clients elsewhere.
public enum BrokerHealth: Sendable, Hashable {
  /// Publishes, history and presence work.
  case ready
  /// The broker cannot reach what it needs.
  /// - Parameters:
  ///   - since: when it was lost, in milliseconds since 1970 (``ChatClock/milliseconds()``).
  ///   - reason: what was lost, for `/readyz` and logs (`redis unreachable`).
  case unavailable(since: Int64, reason: String)

  /// Whether it is ``ready``.
  public var isReady: Bool { self == .ready }
}
