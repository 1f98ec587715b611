import Synchronization

/// Counters the server keeps, exported at `GET /metrics`.
public final class ServerMetrics: Sendable {
  /// TCP connections accepted since start.
  public let tcpAccepted = Atomic<Int>(0)
  /// TCP connections open now.
  public let tcpOpen = Atomic<Int>(0)
  /// Chat messages published (all dialects).
  public let messagesPublished = Atomic<Int>(0)
  /// Datagrams received.
  public let udpReceived = Atomic<Int>(0)
  /// Datagrams dropped (oversized, truncated).
  public let udpDropped = Atomic<Int>(0)
  /// Lines rejected as too long.
  public let linesTooLong = Atomic<Int>(0)
  /// Connections dropped because they stopped reading.
  public let slowConsumers = Atomic<Int>(0)
  /// WebSocket connections open now.
  public let webSocketOpen = Atomic<Int>(0)
  /// Messages the history store failed to keep (e.g. disk full).
  public let storeFailures = Atomic<Int>(0)
  /// HTTP requests answered.
  public let httpRequests = Atomic<Int>(0)
  /// The limits' counters (connections refused, messages rate-limited, timeouts).
  public let limits = LimitMetrics()
  /// The TLS listeners' handshakes and connections.
  public let tls = TLSMetrics()

  public init() {}

  /// The counters in Prometheus text format.
  public func prometheusText(members: Int, rooms: Int) -> String {
    let rows: [(String, String, Int)] = [
      ("switchboard_tcp_connections_accepted_total", "counter", tcpAccepted.load(ordering: .relaxed)),
      ("switchboard_tcp_connections_open", "gauge", tcpOpen.load(ordering: .relaxed)),
      ("switchboard_websocket_connections_open", "gauge", webSocketOpen.load(ordering: .relaxed)),
      ("switchboard_messages_published_total", "counter", messagesPublished.load(ordering: .relaxed)),
      ("switchboard_udp_datagrams_received_total", "counter", udpReceived.load(ordering: .relaxed)),
      ("switchboard_udp_datagrams_dropped_total", "counter", udpDropped.load(ordering: .relaxed)),
      ("switchboard_lines_too_long_total", "counter", linesTooLong.load(ordering: .relaxed)),
      ("switchboard_slow_consumers_total", "counter", slowConsumers.load(ordering: .relaxed)),
      ("switchboard_http_requests_total", "counter", httpRequests.load(ordering: .relaxed)),
      ("switchboard_store_failures_total", "counter", storeFailures.load(ordering: .relaxed)),
      ("switchboard_members", "gauge", members),
      ("switchboard_rooms", "gauge", rooms),
    ]
    return rows.map { "# TYPE \($0.0) \($0.1)\n\($0.0) \($0.2)\n" }.joined() + limits.prometheusText()
      + tls.prometheusText()
  }
}
