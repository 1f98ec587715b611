import SwitchboardChat
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardLog
import SwitchboardTLS
import Synchronization

/// The parts of a running server every loop may read.
final class ServerCore: Sendable {
  let configuration: ServerConfiguration
  let hub: ChatHub
  let metrics: ServerMetrics
  let connections: ConnectionLimiter
  /// `--max-rooms` (LoopContext+Growth.swift).
  let rooms: RoomCap
  let logger: Log
  /// Set when a shutdown begins: `/readyz` then answers 503 while the goodbyes go out.
  let shuttingDown = Atomic<Bool>(false)
  /// When the server started (`GET /api/info`'s uptime).
  let started = ContinuousClock.now
  /// The auth proxy (`--auth-proxy`), `nil` when none is configured.
  let authProxy: AuthProxy?
  /// This node's figures once a second, for the admin console (ServerSampler.swift).
  let sampler = ServerSampler()
  /// The rate of `refused a connection` log lines: ten at once, then one every ten seconds,
  /// the next written one saying how many were held back (a connect loop would otherwise
  /// write one line per attempt).
  let refusalLog = Mutex(LogLineLimiter(burst: 10, interval: .seconds(10), now: Deadline.now().nanoseconds))
  /// The admin console (`--admin-password`): its sessions, login limiter and streams.
  let admin: AdminConsole

  init(configuration: ServerConfiguration, broker: any RoomBroker) {
    self.configuration = configuration
    self.logger = configuration.logger
    self.admin = AdminConsole(configuration: configuration.admin)
    self.metrics = ServerMetrics(loops: max(1, configuration.loopCount), additional: configuration.additionalMetrics)
    self.connections = ConnectionLimiter(
      maxTotal: configuration.limits.maxConnections, maxPerIP: configuration.limits.maxConnectionsPerIP)
    let proxyMetrics = metrics.authProxy
    let logger = configuration.logger
    self.authProxy = configuration.authProxy.map { AuthProxy(configuration: $0, metrics: proxyMetrics, logger: logger) }
    let reporter = StoreFailureReporter(logger: logger, metrics: metrics)
    self.hub = ChatHub(
      configuration: configuration.hubConfiguration, broker: broker,
      onPublishFailure: { room, id, error in reporter.report(room: room, id: id, error) })
    let maxRooms = configuration.limits.maxRooms
    self.rooms = RoomCap(
      limit: maxRooms,
      known: [configuration.defaultRoom] + broker.knownRooms(limit: maxRooms.map { $0 + 1 } ?? Int.max))
    metrics.growth.roomsKnown.store(rooms.count, ordering: .relaxed)
    // Weak: the hub's publish-failure reporter holds the metrics.
    let source = ServerMetrics.ConsoleSource(
      deliveries: { [weak hub = self.hub] in hub?.deliveries ?? 0 },
      busiestRooms: { [sampler = self.sampler] in sampler.busiestRooms })
    metrics.consoleSource.withLock { $0 = source }
  }

  /// Takes over a connection whose first bytes are an HTTP request (on the line port) or
  /// that arrived on the HTTP port. Runs on the connection's loop.
  func httpHandoff(_ connection: ByteStream, _ initialBytes: [UInt8], _ context: LoopContext) {
    _ = HTTPSession(connection: connection, initialBytes: initialBytes, context: context)
  }

  /// Takes over a connection that asked for a WebSocket upgrade; `false` when the upgrade
  /// was refused (answered and closing, its delegate unchanged).
  func webSocketHandoff(_ connection: ByteStream, _ head: HTTPRequestHead, _ leftover: [UInt8], _ context: LoopContext)
    -> Bool
  {
    WebSocketSession.start(connection: connection, head: head, leftover: leftover, context: context)
  }
}
