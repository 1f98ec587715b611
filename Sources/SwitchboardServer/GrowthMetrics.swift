import Synchronization

/// The counters of the bounds on what grows (docs/SECURITY.md, "Limits"): rooms and room
/// joins, exported with the rest at `GET /metrics`. (The history database's cap is counted
/// by the store: `switchboard_history_full_total`.)
public final class GrowthMetrics: Sendable {
  /// Joins of a new room refused because the node keeps `--max-rooms` rooms.
  public let roomsRefused = Atomic<Int>(0)
  /// Joins refused by `--max-joins-per-minute`.
  public let joinsRateLimited = Atomic<Int>(0)
  /// Rooms the node keeps (set when a room is added).
  public let roomsKnown = Atomic<Int>(0)

  public init() {}

  /// The counters in Prometheus text format.
  func prometheusText() -> String {
    "# TYPE switchboard_rooms_refused_total counter\nswitchboard_rooms_refused_total \(roomsRefused.load(ordering: .relaxed))\n"
      + "# TYPE switchboard_joins_rate_limited_total counter\nswitchboard_joins_rate_limited_total \(joinsRateLimited.load(ordering: .relaxed))\n"
      + "# TYPE switchboard_rooms_known gauge\nswitchboard_rooms_known \(roomsKnown.load(ordering: .relaxed))\n"
  }
}
