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
  /// HTTP requests answered 421 because their `Host` is not allowed (DNS rebinding;
  /// `--allow-host`).
  public let hostsRefused = Atomic<Int>(0)
  /// Line connections closed because no `auth:` line came within `--auth-timeout`.
  public let authTimeouts = Atomic<Int>(0)
  /// Refused connections waiting out their grace time now (at most 32; a gauge).
  public let refusedLingering = Atomic<Int>(0)
  /// Refused connections answered and closed at once because 32 were lingering already.
  public let refusedClosedAtOnce = Atomic<Int>(0)
  /// `refused a connection` log lines held back by the log's rate limit.
  public let refusedLogLinesSuppressed = Atomic<Int>(0)

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
      ("switchboard_http_hosts_refused_total", hostsRefused.load(ordering: .relaxed)),
      ("switchboard_auth_timeouts_total", authTimeouts.load(ordering: .relaxed)),
      ("switchboard_refused_connections_closed_at_once_total", refusedClosedAtOnce.load(ordering: .relaxed)),
      ("switchboard_refused_log_lines_suppressed_total", refusedLogLinesSuppressed.load(ordering: .relaxed)),
    ]
    return rows.map { "# TYPE \($0.0) counter\n\($0.0) \($0.1)\n" }.joined()
      + "# TYPE switchboard_refused_connections_lingering gauge\n"
      + "switchboard_refused_connections_lingering \(refusedLingering.load(ordering: .relaxed))\n"
  }
}
