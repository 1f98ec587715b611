import Synchronization

/// The server API's counters (docs/API.md), exported with the rest at `GET /metrics`:
/// `switchboard_api_requests_total{status="2xx|4xx|5xx"}`, the refused keys among them
/// (`switchboard_api_unauthorized_total`) and the answers that timed out
/// (`switchboard_api_timeouts_total`).
public final class APIMetrics: Sendable {
  /// Requests answered 2xx.
  public let succeeded = Atomic<Int>(0)
  /// Requests answered 4xx (refused: bad key, bad body, unknown room…).
  public let refused = Atomic<Int>(0)
  /// Requests answered 5xx (the broker unavailable or too slow).
  public let failed = Atomic<Int>(0)
  /// Requests with no key or a wrong one (401), also counted in ``refused``.
  public let unauthorized = Atomic<Int>(0)
  /// Requests answered 504 because the broker did not answer in time, also in ``failed``.
  public let timeouts = Atomic<Int>(0)

  public init() {}

  /// Counts one answer.
  func answered(status: Int) {
    switch status {
    case 200..<300: succeeded.add(1, ordering: .relaxed)
    case 400..<500: refused.add(1, ordering: .relaxed)
    default: failed.add(1, ordering: .relaxed)
    }
    if status == 401 { unauthorized.add(1, ordering: .relaxed) }
    if status == 504 { timeouts.add(1, ordering: .relaxed) }
  }

  /// The counters in Prometheus text format.
  func prometheusText() -> String {
    "# TYPE switchboard_api_requests_total counter\n"
      + "switchboard_api_requests_total{status=\"2xx\"} \(succeeded.load(ordering: .relaxed))\n"
      + "switchboard_api_requests_total{status=\"4xx\"} \(refused.load(ordering: .relaxed))\n"
      + "switchboard_api_requests_total{status=\"5xx\"} \(failed.load(ordering: .relaxed))\n"
      + "# TYPE switchboard_api_unauthorized_total counter\nswitchboard_api_unauthorized_total \(unauthorized.load(ordering: .relaxed))\n"
      + "# TYPE switchboard_api_timeouts_total counter\nswitchboard_api_timeouts_total \(timeouts.load(ordering: .relaxed))\n"
  }
}
