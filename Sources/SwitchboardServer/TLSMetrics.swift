import Synchronization

/// The TLS listeners' counters (docs/SECURITY.md, "TLS listeners"), exported with the rest
/// at `GET /metrics`. Connections the caps refused at accept never reach a handshake and
/// are counted with the other refusals (``LimitMetrics``).
public final class TLSMetrics: Sendable {
  /// Handshakes completed (the session started).
  public let handshakesCompleted = Atomic<Int>(0)
  /// Handshakes that failed: a protocol error, no shared version or cipher, a client that
  /// hung up before finishing.
  public let handshakesFailed = Atomic<Int>(0)
  /// Connections closed because the handshake was not done in `--tls-handshake-timeout`.
  public let handshakesTimedOut = Atomic<Int>(0)
  /// TLS connections open now (handshaking or established).
  public let open = Atomic<Int>(0)

  public init() {}

  /// The counters in Prometheus text format.
  func prometheusText() -> String {
    let rows: [(String, String, Int)] = [
      ("switchboard_tls_handshakes_total", "counter", handshakesCompleted.load(ordering: .relaxed)),
      ("switchboard_tls_handshakes_failed_total", "counter", handshakesFailed.load(ordering: .relaxed)),
      ("switchboard_tls_handshake_timeouts_total", "counter", handshakesTimedOut.load(ordering: .relaxed)),
      ("switchboard_tls_connections_open", "gauge", open.load(ordering: .relaxed)),
    ]
    return rows.map { "# TYPE \($0.0) \($0.1)\n\($0.0) \($0.2)\n" }.joined()
  }
}
