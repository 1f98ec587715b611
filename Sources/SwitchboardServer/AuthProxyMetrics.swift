import Synchronization

/// The auth proxy's counters (docs/API.md, "Auth proxy"), exported at `GET /metrics`.
public final class AuthProxyMetrics: Sendable {
  /// Requests sent to the backend.
  public let requests = Atomic<Int>(0)
  /// Connections admitted (from the backend or the cache).
  public let allowed = Atomic<Int>(0)
  /// Connections the backend refused (from the backend or the cache).
  public let denied = Atomic<Int>(0)
  /// Connections refused because no usable answer came: timeout, unreachable backend,
  /// non-2xx, malformed answer, too many requests out (fail closed).
  public let failures = Atomic<Int>(0)
  /// Answers taken from the cache.
  public let cacheHits = Atomic<Int>(0)

  public init() {}

  func prometheusText() -> String {
    let rows: [(String, Int)] = [
      ("switchboard_auth_proxy_requests_total", requests.load(ordering: .relaxed)),
      ("switchboard_auth_proxy_allowed_total", allowed.load(ordering: .relaxed)),
      ("switchboard_auth_proxy_denied_total", denied.load(ordering: .relaxed)),
      ("switchboard_auth_proxy_failures_total", failures.load(ordering: .relaxed)),
      ("switchboard_auth_proxy_cache_hits_total", cacheHits.load(ordering: .relaxed)),
    ]
    return rows.map { "# TYPE \($0.0) counter\n\($0.0) \($0.1)\n" }.joined()
  }
}
