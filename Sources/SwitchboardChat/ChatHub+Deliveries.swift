extension ChatHub {
  /// Messages handed to members on this node since it started: one per member per message,
  /// counted once per delivery task on each loop, summed over the loops (`/metrics`'
  /// `switchboard_deliveries_total`, the console's deliveries per second).
  public var deliveries: Int {
    directory.withLock { $0.shards }.reduce(0) { $0 + $1.deliveries.load(ordering: .relaxed) }
  }
}
