import Dispatch
import SwitchboardChat
import SwitchboardIO
import SwitchboardTLS
import Synchronization

/// Why a server could not start.
public struct ServerError: Error, Sendable, CustomStringConvertible {
  public let description: String
  init(_ description: String) { self.description = description }
}

/// The Switchboard server: the TCP line, UDP datagram and HTTP/WebSocket listeners over
/// one set of rooms.
///
/// ```swift
/// let server = try ChatServer(configuration: .init())
/// try server.start()
/// // …
/// server.shutdown(reason: "maintenance")
/// ```
public final class ChatServer: Sendable {
  /// The configuration it runs with.
  public let configuration: ServerConfiguration
  /// The loops the server runs on.
  public let group: EventLoopGroup
  let core: ServerCore
  let contexts: [LoopBound<LoopContext>]
  /// The TLS listeners' certificates, when any are configured.
  let tls: ServerTLS?
  private let state = Mutex(RunState())

  struct RunState {
    var lifecycle = ChatServerLifecycle.initial
    var tcpAddress: SocketAddress?
    var udpAddress: SocketAddress?
    var httpAddress: SocketAddress?
  }

  /// Makes a server (no sockets yet; see ``start()``).
  /// - Throws: ``ServerError`` when ``ServerConfiguration/broker`` cannot make the room
  ///   broker (say, its history store cannot be opened), ``IOError`` when the event loops
  ///   cannot start.
  public init(configuration: ServerConfiguration) throws {
    self.configuration = configuration
    self.tls = try ServerTLS.make(configuration)
    let broker: any RoomBroker
    do {
      broker =
        try configuration.broker?(configuration) ?? LocalRoomBroker(retention: configuration.historyLimit)
    } catch {
      throw ServerError("\(error)")
    }
    self.core = ServerCore(configuration: configuration, broker: broker)
    self.group = try EventLoopGroup(count: configuration.loopCount, backend: configuration.backend)
    var contexts: [LoopBound<LoopContext>] = []
    for loop in group.loops {
      let shard = core.hub.makeShard(executor: loop)
      contexts.append(LoopBound(sending: LoopContext(loop: loop, shard: shard, core: core), on: loop))
    }
    self.contexts = contexts
    core.admin.events.attach(contexts, sampler: core.sampler)
    for context in contexts { context.loop.execute { context.value.startStatsTick() } }
  }

  /// The hub (rooms and members), for embedding and tests.
  public var hub: ChatHub { core.hub }
  /// The server's counters.
  public var metrics: ServerMetrics { core.metrics }

  /// The bound TCP line address (with the real port when configured with 0).
  public var tcpAddress: SocketAddress? { state.withLock { $0.tcpAddress } }
  /// The bound UDP address.
  public var udpAddress: SocketAddress? { state.withLock { $0.udpAddress } }
  /// The bound HTTP/WebSocket address.
  public var httpAddress: SocketAddress? { state.withLock { $0.httpAddress } }

  /// Binds every enabled listener.
  ///
  /// A server starts once: calling this again, or after ``shutdown(reason:)``, is a
  /// programming error and stops the process with a precondition failure (make a new
  /// server instead).
  /// - Throws: ``ServerError`` naming the listener that could not bind (e.g. port in use),
  ///   or saying that ``shutdown(reason:)`` was called from another thread meanwhile. The
  ///   server is shut down by then.
  public func start() throws {
    if case .misuse(let message) = state.withLock({ $0.lifecycle.start() }) { preconditionFailure(message) }
    do {
      try bindListeners()
    } catch {
      if state.withLock({ $0.lifecycle.startFailed() }) == .shutDown { stop(reason: "start failed") }
      throw error
    }
    if case .shutDown(let reason) = state.withLock({ $0.lifecycle.started() }) {
      stop(reason: reason)
      throw ServerError("shut down while starting")
    }
  }

  private func bindListeners() throws {
    let c = configuration
    let first = contexts[0]
    let group = self.group
    let contexts = self.contexts
    if c.tcpEnabled {
      let address = try parse(c.host, c.tcpPort, "TCP")
      let bound = first.run { context throws(IOError) -> SocketAddress in
        let listener = try TCPListener(address: address, loop: context.loop) { fd, peer in
          Self.adopt(
            fd: fd, peer: peer, group: group, contexts: contexts, listener: .line,
            make: { conn, ctx in
              _ = LineSession(connection: .tcp(conn), context: ctx)
            })
        }
        context.listeners.append(listener)
        return listener.localAddress
      }
      try record(bound, "TCP", address) { $0.tcpAddress = $1 }
    }
    if c.udpEnabled {
      let address = try parse(c.host, c.udpPort, "UDP")
      let bound = first.run { context throws(IOError) -> SocketAddress in
        let socket = try UDPSocket(bindingTo: address, loop: context.loop)
        context.udp = UDPService(socket: socket, context: context)
        return socket.localAddress
      }
      try record(bound, "UDP", address) { $0.udpAddress = $1 }
    }
    if c.httpEnabled {
      let address = try parse(c.host, c.httpPort, "HTTP")
      let bound = first.run { context throws(IOError) -> SocketAddress in
        let listener = try TCPListener(address: address, loop: context.loop) { fd, peer in
          Self.adopt(
            fd: fd, peer: peer, group: group, contexts: contexts, listener: .http,
            make: { conn, ctx in
              ctx.core.httpHandoff(.tcp(conn), [], ctx)
            })
        }
        context.listeners.append(listener)
        return listener.localAddress
      }
      try record(bound, "HTTP", address) { $0.httpAddress = $1 }
    }
    try bindTLSListeners()
  }

  private func parse(_ host: String, _ port: Int, _ what: String) throws -> SocketAddress {
    do {
      return try SocketAddress(host: host, port: port)
    } catch {
      throw ServerError("\(what) listener: \(error)")
    }
  }

  private func record(
    _ result: Result<SocketAddress, IOError>, _ what: String, _ address: SocketAddress,
    _ set: (inout RunState, SocketAddress) -> Void
  ) throws {
    switch result {
    case .success(let bound):
      state.withLock { set(&$0, bound) }
      core.logger.info("listening", metadata: ["listener": what.lowercased(), "address": "\(bound)"])
    case .failure(let error):
      let hint =
        error.kind == .addressInUse ? " (port in use; pick another with --\(what.lowercased())-port)" : ""
      throw ServerError("cannot listen for \(what) on \(address): \(error)\(hint)")
    }
  }

  /// Hands an accepted descriptor to the next loop and builds its session there.
  static func adopt(
    fd: Int32, peer: SocketAddress?, group: EventLoopGroup, contexts: [LoopBound<LoopContext>],
    listener: RefusedConnection.Listener, make: @escaping @Sendable (TCPConnection, LoopContext) -> Void
  ) {
    let target = contexts[group.next().index]
    target.loop.execute {
      let context = target.value
      do {
        let connection = try TCPConnection(fd: fd, loop: context.loop, remoteAddress: peer)
        let serial = context.metrics.tcpAccepted.add(1, ordering: .relaxed).newValue
        context.logger.debug("accepted", metadata: .connection(peer: connection.remoteAddress, conn: serial))
        guard context.core.admit(connection, on: listener, loop: context.loop) else { return }
        make(connection, context)
      } catch {
        context.logger.warning(
          "could not adopt a connection", metadata: .connection(peer: peer, error: "\(error)"))
      }
    }
  }

  /// Tells every member the server is going away, flushes, closes every socket and stops
  /// the loops. Safe to call more than once (later calls return at once), before
  /// ``start()`` (it just stops the loops), and from any thread but a loop's own. While
  /// ``start()`` runs on another thread it returns at once, and that start shuts the
  /// server down when its binds are done.
  public func shutdown(reason: String = "shutting down") {
    guard state.withLock({ $0.lifecycle.shutdown(reason: reason) }) == .shutDown else { return }
    stop(reason: reason)
  }

  /// Carries out a shutdown the lifecycle agreed to.
  private func stop(reason: String) {
    core.shuttingDown.store(true, ordering: .relaxed)
    core.hub.broadcastShutdown(reason: reason)
    // Let each loop run the goodbye and close its listeners, then stop.
    for context in contexts {
      _ = context.run { context throws(IOError) in
        context.endAdminStreams(reason: reason)
        for listener in context.listeners { listener.close() }
        context.listeners = []
        context.udp?.close()
        context.udp = nil
      }
    }
    // One more round so the goodbye writes flush before the descriptors close.
    for context in contexts { _ = context.run { _ throws(IOError) in } }
    group.shutdownGracefully()
    // Everything published is with the broker now: keep it (commit the store) before exiting.
    core.hub.broker.close()
    core.authProxy?.shutdown()
    state.withLock { $0.lifecycle.stopped() }
  }
}
