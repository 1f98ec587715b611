import SwitchboardChat
import SwitchboardHTTP
import Synchronization
import SwitchboardIO
import SwitchboardLog

extension EventLoop: ShardExecutor {}

/// What every session on one event loop shares: the loop, its hub shard, and the
/// sessions it owns (loop-confined, so plain dictionaries).
final class LoopContext {
  let loop: EventLoop
  let shard: HubShard
  let core: ServerCore
  /// Sessions alive on this loop, owned here until their connection closes. Timers and
  /// store completions find a session here by id instead of holding it weakly.
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
  var logger: Log { core.logger }
}

/// The parts of a running server every loop may read.
final class ServerCore: Sendable {
  let configuration: ServerConfiguration
  let hub: ChatHub
  let metrics = ServerMetrics()
  let logger: Log

  init(configuration: ServerConfiguration, store: HistoryStore) {
    self.configuration = configuration
    self.logger = configuration.logger
    let reporter = StoreFailureReporter(logger: logger, metrics: metrics)
    self.hub = ChatHub(
      configuration: configuration.hubConfiguration, store: store,
      onStoreFailure: { message, error in reporter.report(message, error) })
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

/// Logs history-store failures at most every 10 s, so a full disk cannot flood the log;
/// live delivery goes on regardless.
final class StoreFailureReporter: Sendable {
  private let logger: Log
  private let metrics: ServerMetrics
  private let state = Mutex<(lastWarning: Int64, failures: Int)>((0, 0))

  init(logger: Log, metrics: ServerMetrics) {
    self.logger = logger
    self.metrics = metrics
  }

  func report(_ message: ChatMessage, _ error: StoreError) {
    metrics.storeFailures.add(1, ordering: .relaxed)
    let now = ChatClock.milliseconds()
    let count = state.withLock { state -> Int? in
      state.failures += 1
      guard now - state.lastWarning >= 10_000 else { return nil }
      state.lastWarning = now
      return state.failures
    }
    if let count {
      logger.warning(
        "history store failed to keep a message; live delivery continues",
        metadata: ["room": message.room, "id": "\(message.id)", "error": "\(error)", "failures": "\(count)"])
    }
  }
}
