/// What an ``MDNSResponder`` refused, for `/metrics` and tests.
public struct MDNSResponderStatistics: Sendable, Hashable {
  /// Queries from a source not on the link they came in on (``MDNSSourceVerdict/offLink``),
  /// ignored whole (RFC 6762 §5.5, §11).
  public var offLinkQueriesIgnored: UInt64 = 0
  /// Legacy unicast queries (source port other than 5353) from on-link sources left
  /// unanswered because their source had used up its allowance
  /// (``MDNSResponderConfiguration/legacyUnicastBurst``).
  public var legacyQueriesRateLimited: UInt64 = 0
  /// Legacy unicast queries answered.
  public var legacyQueriesAnswered: UInt64 = 0

  /// All zero.
  public init() {}
}

extension MDNSResponderStatistics {
  /// The counts as Prometheus text (`switchboard_mdns_…_total` counters), for `/metrics`.
  public func prometheusText() -> String {
    [
      ("switchboard_mdns_offlink_queries_ignored_total", offLinkQueriesIgnored),
      ("switchboard_mdns_legacy_queries_rate_limited_total", legacyQueriesRateLimited),
      ("switchboard_mdns_legacy_queries_answered_total", legacyQueriesAnswered),
    ].map { name, value in "# TYPE \(name) counter\n\(name) \(value)\n" }.joined()
  }
}
