import SwitchboardIO
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
  /// Connections dropped because they stopped reading (all dialects; by dialect in
  /// ``slowLineConsumers`` and ``slowWebSocketConsumers``).
  public let slowConsumers = Atomic<Int>(0)
  /// Line connections dropped because they stopped reading.
  public let slowLineConsumers = Atomic<Int>(0)
  /// WebSocket connections dropped because they stopped reading.
  public let slowWebSocketConsumers = Atomic<Int>(0)
  /// WebSocket connections open now.
  public let webSocketOpen = Atomic<Int>(0)
  /// Messages the history store failed to keep (e.g. disk full).
  public let storeFailures = Atomic<Int>(0)
  /// HTTP requests answered.
  public let httpRequests = Atomic<Int>(0)
  /// Typing events this node's members started or stopped (relayed, incl. expiries).
  public let typingEvents = Atomic<Int>(0)
  /// Typing frames dropped by the per-member rate limit (docs/PROTOCOLS.md, "Typing").
  public let typingDropped = Atomic<Int>(0)
  /// The limits' counters (connections refused, messages rate-limited, timeouts).
  public let limits = LimitMetrics()
  /// The TLS listeners' handshakes and connections.
  public let tls = TLSMetrics()
  /// The UDP port's address proofs, withheld answers and member cap.
  public let udp = UDPMetrics()
  /// The bounds on rooms and joins (``GrowthMetrics``).
  public let growth = GrowthMetrics()
  /// The auth proxy's questions and answers (``AuthProxyMetrics``).
  public let authProxy = AuthProxyMetrics()
  /// The server API's answers (``APIMetrics``).
  public let api = APIMetrics()
  /// Connections open now by transport (``ConnectionGauges``).
  public let connectionsOpen = ConnectionGauges()
  /// The hub's deliveries and the busiest rooms, for `/metrics` (ServerMetrics+Console.swift).
  let consoleSource = Mutex<ConsoleSource?>(nil)

  /// The loops' own counters and gauges, one per loop (none for a server without loops).
  let loops: [LoopMetrics]
  /// More Prometheus text for `/metrics` (``ServerConfiguration/additionalMetrics``).
  private let additional: (@Sendable () -> String)?

  /// Counters at zero, for a server of `loops` event loops.
  public convenience init() { self.init(loops: 0, additional: nil) }

  init(loops: Int, additional: (@Sendable () -> String)?) {
    self.loops = (0..<loops).map { LoopMetrics(index: $0) }
    self.additional = additional
  }

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
      ("switchboard_http_requests_total", "counter", httpRequests.load(ordering: .relaxed)),
      ("switchboard_store_failures_total", "counter", storeFailures.load(ordering: .relaxed)),
      ("switchboard_typing_events_total", "counter", typingEvents.load(ordering: .relaxed)),
      ("switchboard_typing_dropped_total", "counter", typingDropped.load(ordering: .relaxed)),
      ("switchboard_members", "gauge", members),
      ("switchboard_rooms", "gauge", rooms),
      ("switchboard_heap_bytes_in_use", "gauge", HeapPolicy.bytesInUse),
    ]
    let features: String = authProxy.prometheusText() + api.prometheusText()
    return rows.map { "# TYPE \($0.0) \($0.1)\n\($0.0) \($0.2)\n" }.joined() + limits.prometheusText()
      + tls.prometheusText() + udp.prometheusText() + growth.prometheusText() + features
      + dialectText() + loopText() + consoleText() + (additional?() ?? "")
  }

  /// Slow consumers and bytes in and out, by dialect (bytes summed over the loops).
  private func dialectText() -> String {
    var text = "# TYPE switchboard_slow_consumers_total counter\n"
    text +=
      "switchboard_slow_consumers_total{dialect=\"line\"} \(slowLineConsumers.load(ordering: .relaxed))\n"
    text +=
      "switchboard_slow_consumers_total{dialect=\"websocket\"} \(slowWebSocketConsumers.load(ordering: .relaxed))\n"
    let dialects: [(String, KeyPath<LoopMetrics, ByteCounter>)] = [
      ("line", \.line), ("udp", \.udp), ("websocket", \.webSocket), ("http", \.http),
    ]
    for (name, direction) in [("received", true), ("sent", false)] {
      text += "# TYPE switchboard_bytes_\(name)_total counter\n"
      for (dialect, path) in dialects {
        let sum = loops.reduce(0) { total, loop in
          let counter = loop[keyPath: path]
          return total
            + (direction ? counter.received.load(ordering: .relaxed) : counter.sent.load(ordering: .relaxed))
        }
        text += "switchboard_bytes_\(name)_total{dialect=\"\(dialect)\"} \(sum)\n"
      }
    }
    return text
  }

  /// Each loop's lag histogram and sampled gauges.
  private func loopText() -> String {
    guard !loops.isEmpty else { return "" }
    var text = "# TYPE switchboard_loop_lag_seconds histogram\n"
    var max = "# TYPE switchboard_loop_lag_max_seconds gauge\n"
    for loop in loops {
      let lag = loop.lagHistogram
      text += lag.prometheusLines(name: "switchboard_loop_lag_seconds", labels: "loop=\"\(loop.index)\"")
      max += "switchboard_loop_lag_max_seconds{loop=\"\(loop.index)\"} \(Double(lag.maxNanoseconds) / 1e9)\n"
    }
    text += max
    let gauges: [(String, (LoopMetrics) -> Int)] = [
      ("switchboard_loop_timers", { $0.timers.load(ordering: .relaxed) }),
      ("switchboard_loop_descriptors", { $0.descriptors.load(ordering: .relaxed) }),
      ("switchboard_write_queue_bytes", { $0.queuedBytes.load(ordering: .relaxed) }),
    ]
    for (name, value) in gauges {
      text += "# TYPE \(name) gauge\n"
      for loop in loops { text += "\(name){loop=\"\(loop.index)\"} \(value(loop))\n" }
    }
    return text
  }
}
