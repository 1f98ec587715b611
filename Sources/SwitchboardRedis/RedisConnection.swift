import Dispatch
import SwitchboardIO
import SwitchboardLog
import SwitchboardRESP
import SwitchboardTLS

/// The loop side of a ``RedisClient`` or ``RedisSubscriber``: one connection to Redis at a
/// time, its handshake, the commands in flight (replies matched in order), timeouts and
/// reconnects. Plain synchronous code on one loop; the public types reach it with
/// `loop.execute` through a `LoopBound`.
///
/// Its life is a ``RedisConnectionState``, changed only by ``move(to:error:)``, which checks
/// the transition. Each transport gets a new `generation`, so callbacks of an old transport
/// (a connect that completes late, a close reported after a reset) are recognised and dropped.
final class RedisConnection: Flushable, ByteStreamDelegate {
  /// What the connection carries.
  enum Role {
    /// Commands and their replies (``RedisClient``).
    case commands
    /// Subscriptions and their messages (``RedisSubscriber``).
    case subscriber
  }

  typealias Completion = (Result<RESPValue, RedisError>) -> Void

  /// A command waiting for a connection (with its bytes) or for its reply.
  struct Pending {
    var command: RESPCommand?
    let deadline: Deadline
    let completion: Completion
  }

  let loop: EventLoop
  let configuration: RedisConfiguration
  let role: Role
  let observer: RedisObserver
  let logger: Log

  private(set) var state: RedisConnectionState = .idle
  /// The RESP version the current connection speaks (3 until a fallback says 2).
  var protocolVersion = 3
  var statistics = RedisStatistics()
  /// Scripts sent on this connection (by SHA-1); a new connection starts empty.
  var scripts: Set<String> = []
  /// A subscriber's subscriptions (and their confirmations), kept across reconnects.
  var pubsub = RedisSubscriptions()
  /// Where a subscriber's messages go (on the loop).
  var messageHandler: ((RedisPubSubMessage) -> Void)?

  var transport: ByteStream?
  private(set) var generation = 0
  private var decoder: RESPDecoder
  /// Commands asked for while not ready.
  var waiting = RedisQueue<Pending>()
  /// Commands sent, in order; the next reply belongs to the first.
  var inFlight = RedisQueue<Pending>()
  private var output: [UInt8] = []
  private var flushScheduled = false
  private var tick: Scheduled?
  private var retry: Scheduled?
  /// The end of the current connection attempt (connecting and handshaking).
  private var attemptDeadline: Deadline?
  private var tlsContext: TLSContext?
  private var random = SystemRandomNumberGenerator()
  /// Set while not closed: open transports and timers hold the connection only weakly.
  private var keepAlive: RedisConnection?

  init(loop: EventLoop, configuration: RedisConfiguration, role: Role, observer: RedisObserver) {
    self.loop = loop
    self.configuration = configuration
    self.role = role
    self.observer = observer
    self.logger = configuration.logger.child(metadata: ["redis": "\(configuration.url)"])
    self.decoder = RESPDecoder(limits: configuration.limits)
  }

  /// Commands waiting or in flight (what ``RedisConfiguration/maxPendingCommands`` bounds).
  var pendingCount: Int { waiting.count + inFlight.count }

  // MARK: Life

  /// Starts the first connection attempt and the deadline checks. Loop thread only.
  func start() {
    loop.assertInEventLoop()
    // Closed before the loop got to start it (a close on the loop, right after init).
    guard state == .idle else { return }
    keepAlive = self
    let every = min(max(configuration.commandTimeout / 10, .milliseconds(5)), .milliseconds(100))
    tick = loop.scheduleRepeatingLocal(every: every) { [weak self] in self?.checkDeadlines() }
    connect(attempt: 1)
  }

  /// Closes for good: everything waiting or in flight fails with ``RedisError/Kind/closed``.
  func close() {
    guard state != .closed else { return }
    move(to: .closed, error: nil)
    tick?.cancel()
    retry?.cancel()
    flush()
    let old = transport
    transport = nil
    generation += 1
    old?.close()
    let failed = waiting.removeAll() + inFlight.removeAll()
    let subscriptions = pubsub.failAll()
    keepAlive = nil
    for pending in failed { pending.completion(.failure(.closed())) }
    for completion in subscriptions { completion(.failure(.closed())) }
  }

  /// The one place the state changes.
  func move(to next: RedisConnectionState, error: RedisError?) {
    precondition(state.allows(next), "RedisConnection: invalid transition \(state) → \(next)")
    state = next
    observer.update(next, error: error)
  }

  // MARK: Connecting

  private func connect(attempt: Int) {
    move(to: .connecting(attempt: attempt), error: nil)
    generation += 1
    let generation = generation
    attemptDeadline = Deadline.now().adding(configuration.connectTimeout)
    let url = configuration.url
    if let address = try? SocketAddress(host: url.host, port: url.port) {
      open(address, generation: generation)
      return
    }
    // A name: resolve it off the loop (getaddrinfo blocks), then come back.
    let bound = LoopBound(self, on: loop)
    DispatchQueue.global().async {
      let result = Result { () throws(IOError) in try SocketAddress.resolve(host: url.host, port: url.port) }
      bound.loop.execute {
        let connection = bound.value
        guard connection.generation == generation, case .connecting = connection.state else { return }
        switch result {
        case .success(let address): connection.open(address, generation: generation)
        case .failure(let error): connection.attemptFailed(.connectFailed("\(url.host): \(error)"))
        }
      }
    }
  }

  private func open(_ address: SocketAddress, generation: Int) {
    if configuration.url.tls {
      let context: TLSContext
      do {
        context = try tlsContext ?? TLSContext(configuration: configuration.tls ?? TLSConfiguration())
        tlsContext = context
      } catch {
        attemptFailed(.connectFailed("TLS configuration: \(error)"))
        return
      }
      let name = configuration.tls?.serverName ?? configuration.url.host
      TLSConnection.connect(to: address, serverName: name, context: context, on: loop) { [weak self] result in
        guard let self, self.generation == generation, case .connecting = self.state else {
          if case .success(let connection) = result { connection.close() }
          return
        }
        switch result {
        case .failure(let error): self.attemptFailed(.connectFailed("\(address): \(error)"))
        case .success(let connection): self.connected(.tls(connection))
        }
      }
    } else {
      TCPConnection.connect(to: address, on: loop) { [weak self] result in
        guard let self, self.generation == generation, case .connecting = self.state else {
          if case .success(let connection) = result { connection.close() }
          return
        }
        switch result {
        case .failure(let error): self.attemptFailed(.connectFailed("\(address): \(error)"))
        case .success(let connection): self.connected(.tcp(connection))
        }
      }
    }
  }

  private func connected(_ transport: ByteStream) {
    transport.attach(self)
    guard case .connecting(let attempt) = state else { return transport.close() }
    // The pipeline may hold many megabytes of commands while Redis reads them: the
    // connection's slow-consumer cap must not cut it (pendingCount bounds it instead).
    transport.tcp.limits.maximumBuffered = 256 << 20
    self.transport = transport
    decoder = RESPDecoder(limits: configuration.limits)
    scripts.removeAll()
    move(to: .handshaking(attempt: attempt), error: nil)
    startHandshake()
  }

  /// The handshake is done: flush what waited.
  func becomeReady() {
    attemptDeadline = nil
    statistics.connects += 1
    move(to: .ready(protocolVersion: protocolVersion), error: nil)
    logger.info(
      statistics.connects == 1 ? "connected" : "reconnected", metadata: ["resp": "\(protocolVersion)"])
    let now = Deadline.now()
    for var pending in waiting.removeAll() {
      guard pending.deadline > now, let command = pending.command else {
        statistics.timeouts += 1
        pending.completion(.failure(.timeout("no connection to Redis within the command's timeout")))
        continue
      }
      pending.command = nil
      write(command)
      inFlight.append(pending)
    }
    if role == .subscriber { reconcileSubscriptions() }
  }

  /// A connection attempt failed before becoming ready: back off and try again.
  func attemptFailed(_ error: RedisError) {
    let attempt: Int
    switch state {
    case .connecting(let n), .handshaking(let n): attempt = n
    default: return
    }
    statistics.failedAttempts += 1
    logger.debug("connection attempt failed", metadata: ["error": "\(error)", "attempt": "\(attempt)"])
    let failures = dropTransport(failing: error, timedOutBefore: nil)
    backOff(attempt: attempt + 1, error: error)
    for failure in failures { failure() }
  }

  /// The ready connection was lost (or is given up): fail what is in flight and reconnect.
  /// Commands whose deadline is at or before `timedOutBefore` fail with a timeout, the
  /// others with `error`.
  func lose(_ error: RedisError, timedOutBefore: Deadline? = nil) {
    switch state {
    case .ready:
      statistics.losses += 1
      logger.warning("connection lost", metadata: ["error": "\(error)"])
      let failures = dropTransport(failing: error, timedOutBefore: timedOutBefore)
      backOff(attempt: 1, error: error)
      for failure in failures { failure() }
    case .connecting, .handshaking:
      attemptFailed(error)
    case .idle, .backingOff, .closed:
      return
    }
  }

  /// Resets the transport and empties what was in flight; returns the completions to run,
  /// which the caller runs only after leaving the state (a completion that sends again must
  /// find the connection not ready, so its command waits for the next connection instead of
  /// being written to the one just dropped).
  private func dropTransport(failing error: RedisError, timedOutBefore: Deadline?) -> [() -> Void] {
    // Forget the transport first: the reset reports its close at once, and a close of a
    // transport that is no longer current is ignored.
    let old = transport
    transport = nil
    generation += 1
    old?.reset()
    output.removeAll()
    attemptDeadline = nil
    var failures: [() -> Void] = []
    for pending in inFlight.removeAll() {
      if let timedOutBefore, pending.deadline <= timedOutBefore {
        statistics.timeouts += 1
        failures.append { pending.completion(.failure(.timeout("no reply within the command's timeout"))) }
      } else {
        failures.append { pending.completion(.failure(error)) }
      }
    }
    for (completion, result) in pubsub.connectionLost(error) { failures.append { completion(result) } }
    return failures
  }

  private func backOff(attempt: Int, error: RedisError) {
    guard state != .closed else { return }
    let delay = configuration.backoff.delay(attempt: attempt, using: &random)
    move(to: .backingOff(attempt: attempt, delay: delay), error: error)
    retry = loop.scheduleLocal(after: delay) { [weak self] in
      guard let self, case .backingOff(let next, _) = self.state else { return }
      self.connect(attempt: next)
    }
  }

  // MARK: Deadlines

  private func checkDeadlines() {
    let now = Deadline.now()
    switch state {
    case .connecting, .handshaking:
      if let attemptDeadline, attemptDeadline <= now {
        attemptFailed(.timeout("no connection to Redis within \(configuration.connectTimeout)"))
      }
    case .ready:
      if inFlight.contains(where: { $0.deadline <= now }) || pubsub.hasExpired(now) {
        statistics.timeouts += pubsub.hasExpired(now) ? 1 : 0
        lose(
          .connectionLost("connection reset: a command timed out, so the server is treated as unreachable"),
          timedOutBefore: now)
      }
    case .idle, .backingOff, .closed:
      break
    }
    for pending in waiting.removeAll(where: { $0.deadline <= now }) {
      statistics.timeouts += 1
      pending.completion(.failure(.timeout("no connection to Redis within the command's timeout")))
    }
    for completion in pubsub.expireWaiting(now) {
      completion(.failure(.timeout("no connection to Redis within the timeout")))
    }
  }

  // MARK: Writing

  /// Queues `command`'s bytes; they leave at the end of the loop's iteration, every
  /// command of the iteration in one write.
  func write(_ command: RESPCommand) {
    command.encode(into: &output)
    statistics.commandsSent += 1
    if !flushScheduled {
      flushScheduled = true
      loop.needsFlush(self)
    }
  }

  /// Writes what was queued this iteration (called by the loop).
  func flush() {
    flushScheduled = false
    guard !output.isEmpty else { return }
    transport?.write(output)
    output.removeAll(keepingCapacity: output.capacity <= 1 << 20)
  }

  /// Sends `command` now, whatever the state (the handshake's own commands).
  func sendNow(_ command: RESPCommand, deadline: Deadline, _ completion: @escaping Completion) {
    write(command)
    inFlight.append(Pending(command: nil, deadline: deadline, completion: completion))
  }

  // MARK: Reading

  private func read(_ bytes: UnsafeRawBufferPointer) {
    let generation = generation
    do {
      try decoder.append(bytes)
      while self.generation == generation, let value = try decoder.next() {
        receive(value)
      }
    } catch {
      guard self.generation == generation else { return }
      lose(.decoding(error))
    }
  }

  private func isCurrent(_ stream: ByteStream) -> Bool {
    if let transport { return transport === stream }
    return false
  }

  /// The transport ended: the server closed it (EOF) or it failed.
  private func transportEnded(_ error: (any Error)?, eof: Bool = false) {
    let reason =
      eof
      ? "the server closed the connection" : error.map { "connection closed: \($0)" } ?? "connection closed"
    lose(.connectionLost(reason))
  }

  // The transport's events: those of a transport that is no longer current are dropped (an
  // old one that still reports EOF is closed).

  func stream(_ stream: ByteStream, didRead bytes: UnsafeRawBufferPointer) {
    if isCurrent(stream) { read(bytes) }
  }

  func streamDidReadEOF(_ stream: ByteStream) {
    if isCurrent(stream) { transportEnded(nil, eof: true) } else { stream.close() }
  }

  func stream(_ stream: ByteStream, didCloseWith error: ByteStreamError?) {
    if isCurrent(stream) { transportEnded(error) }
  }
}

@available(*, unavailable)
extension RedisConnection: Sendable {}
