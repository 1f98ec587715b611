import Synchronization

/// The counters of the limits in docs/SECURITY.md ("Limits"), exported with the rest at
/// `GET /metrics`.
public final class LimitMetrics: Sendable {
  /// Connections refused because the server held `--max-connections`.
  public let refusedTotal = Atomic<Int>(0)
  /// Connections refused because their address held `--max-connections-per-ip`.
  public let refusedPerIP = Atomic<Int>(0)
  /// Messages refused by `--max-message-rate` (answered with an error).
  public let messagesRateLimited = Atomic<Int>(0)
  /// Connections closed for exceeding `--max-message-rate` persistently.
  public let rateLimitCloses = Atomic<Int>(0)
  /// Messages refused by `--max-byte-rate` (answered with an error).
  public let bytesRateLimited = Atomic<Int>(0)
  /// Connections closed for exceeding `--max-byte-rate` persistently.
  public let byteRateLimitCloses = Atomic<Int>(0)
  /// Datagrams dropped by `--max-datagram-rate`.
  public let datagramsRateLimited = Atomic<Int>(0)
  /// HTTP connections answered 408 because a request did not arrive in `--http-request-timeout`.
  public let httpRequestTimeouts = Atomic<Int>(0)
  /// Connections closed by `--idle-timeout`.
  public let idleTimeouts = Atomic<Int>(0)

  public init() {}

  /// The counters in Prometheus text format.
  func prometheusText() -> String {
    let rows: [(String, Int)] = [
      ("switchboard_connections_refused_total", refusedTotal.load(ordering: .relaxed)),
      ("switchboard_connections_refused_per_ip_total", refusedPerIP.load(ordering: .relaxed)),
      ("switchboard_messages_rate_limited_total", messagesRateLimited.load(ordering: .relaxed)),
      ("switchboard_rate_limit_closes_total", rateLimitCloses.load(ordering: .relaxed)),
      ("switchboard_byte_rate_limited_total", bytesRateLimited.load(ordering: .relaxed)),
      ("switchboard_byte_rate_limit_closes_total", byteRateLimitCloses.load(ordering: .relaxed)),
      ("switchboard_udp_datagrams_rate_limited_total", datagramsRateLimited.load(ordering: .relaxed)),
      ("switchboard_http_request_timeouts_total", httpRequestTimeouts.load(ordering: .relaxed)),
      ("switchboard_idle_timeouts_total", idleTimeouts.load(ordering: .relaxed)),
    ]
    return rows.map { "# TYPE \($0.0) counter\n\($0.0) \($0.1)\n" }.joined()
  }
}
