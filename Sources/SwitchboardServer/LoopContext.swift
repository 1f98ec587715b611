import SwitchboardChat
import SwitchboardHTTP
import SwitchboardIO

extension EventLoop: ShardExecutor {}

/// What every session on one event loop shares: the loop, its hub shard, and the
/// sessions it owns (loop-confined, so plain dictionaries).
final class LoopContext {
  let loop: EventLoop
  let shard: HubShard
  let core: ServerCore
  /// Sessions alive on this loop, owned here (connections hold their delegates weakly).
  var sessions: [MemberID: AnyObject] = [:]
  /// HTTP connections alive on this loop.
  var httpSessions: [ObjectIdentifier: HTTPSession] = [:]
  /// Listeners running on this loop.
  var listeners: [TCPListener] = []
  /// The UDP service, on the loop that owns the UDP socket.
  var udp: UDPService?

  init(loop: EventLoop, shard: HubShard, core: ServerCore) {
    self.loop = loop
    self.shard = shard
    self.core = core
  }

  var hub: ChatHub { core.hub }
  var configuration: ServerConfiguration { core.configuration }
  var metrics: ServerMetrics { core.metrics }
  var logger: Logger { core.logger }
}

/// The parts of a running server every loop may read.
final class ServerCore: Sendable {
  let configuration: ServerConfiguration
  let hub: ChatHub
  let metrics = ServerMetrics()
  let logger: Logger

  init(configuration: ServerConfiguration, logger: Logger, store: HistoryStore) {
    self.configuration = configuration
    self.logger = logger
    self.hub = ChatHub(configuration: configuration.hubConfiguration, store: store)
  }

  /// Takes over a connection whose first bytes are an HTTP request (on the line port) or
  /// that arrived on the HTTP port. Runs on the connection's loop.
  func httpHandoff(_ connection: TCPConnection, _ initialBytes: [UInt8], _ context: LoopContext) {
    _ = HTTPSession(connection: connection, initialBytes: initialBytes, context: context)
  }

  /// Takes over a connection that asked for a WebSocket upgrade.
  func webSocketHandoff(_ connection: TCPConnection, _ head: HTTPRequestHead, _ leftover: [UInt8], _ context: LoopContext) {
    WebSocketSession.start(connection: connection, head: head, leftover: leftover, context: context)
  }
}
