import Synchronization

/// Connections open now by transport, for `/metrics`' `switchboard_connections_open` and the
/// admin console: each added to where its session starts and subtracted from where it ends,
/// so that reading them walks nothing. UDP members are counted in ``UDPMetrics/members``.
public final class ConnectionGauges: Sendable {
  /// A transport with a connection of its own (UDP has none).
  enum Stream {
    case tcp, tls, ws, wss

    /// A line connection's transport.
    static func line(tls: Bool) -> Stream { tls ? .tls : .tcp }
    /// A WebSocket connection's transport.
    static func webSocket(tls: Bool) -> Stream { tls ? .wss : .ws }
  }

  /// Line connections over plain TCP (until an HTTP request is recognised on them).
  public let tcp = Atomic<Int>(0)
  /// Line connections over TLS.
  public let tls = Atomic<Int>(0)
  /// WebSocket connections over plain HTTP.
  public let ws = Atomic<Int>(0)
  /// WebSocket connections over HTTPS.
  public let wss = Atomic<Int>(0)

  /// Every gauge at zero.
  public init() {}

  /// A connection of `stream` opened (`+1`) or closed (`-1`).
  func add(_ delta: Int, _ stream: Stream) {
    switch stream {
    case .tcp: tcp.add(delta, ordering: .relaxed)
    case .tls: tls.add(delta, ordering: .relaxed)
    case .ws: ws.add(delta, ordering: .relaxed)
    case .wss: wss.add(delta, ordering: .relaxed)
    }
  }
}
