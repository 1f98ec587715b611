import SwitchboardAuth
import SwitchboardChat
import SwitchboardIO
import SwitchboardTLS
import SwitchboardWire

/// One connection on the line port (`tcp://`, or `tls://` decrypted in the same loop): framing, the pause that ends an unterminated
/// message, the wait for a name, commands, and delivery of room events.
final class LineSession: ByteStreamDelegate, LineParticipant {
  let memberID: MemberID
  let connection: ByteStream
  // Safety: `unowned(unsafe)` for the reason and with the lifetime argument of
  // `WebSocketSession.context`: read on every line (`LineParticipant`'s publish reads the
  // hub and the metrics through it), and alive whenever session code runs, which is only
  // on its loop's thread while that loop runs, which the context outlives.
  unowned(unsafe) let context: LoopContext
  private var framer: LineFramer
  private enum Mode { case undecided, line, handedOff }
  private var mode = Mode.undecided
  private var firstBytes: [UInt8] = []
  /// Output held until we know this is not a browser (so no chat reaches an HTTP client).
  private var held: [SharedBytes] = []
  private(set) var lastRead = Deadline.now()
  private var pauseTimer: Scheduled?
  private var nameTimer: Scheduled?
  private(set) var closing = false
  /// Token state (docs/SECURITY.md): `open` when the server checks none.
  var auth: SessionAuth
  /// Fires at `--auth-timeout` while no token was accepted, then when the accepted token
  /// runs out.
  var authTimer: Scheduled?
  /// What the member may do in its room, resolved at each join (LineSession+Auth.swift):
  /// read on every message it sends and every delivery, so not recomputed there, and
  /// without a dynamic exclusivity check (a plain value, loop-confined, never accessed
  /// while another access to it is under way).
  @exclusivity(unchecked) var roomCapabilities = RoomCapabilities.all
  /// The auth proxy's verdict on this connection (LineSession+AuthProxy.swift): `off` without one.
  var proxy: AuthProxyState
  /// `--max-message-rate` (nil: off); see LineSession+Limits.swift.
  var rateLimit: MessageRateLimiter?
  /// `--max-byte-rate` (nil: off).
  var byteLimit: MessageRateLimiter?
  /// `--idle-timeout` (nil: off).
  var idleTimer: Scheduled?
  /// Typing (docs/PROTOCOLS.md, "Typing"): made at the member's first `/typing`; `nil` for
  /// a member that never sends one, which then sees no typing notice.
  var typing: MemberTyping?

  init(connection: ByteStream, context: LoopContext) {
    self.connection = connection
    self.context = context
    self.memberID = context.hub.nextMemberID(transport: connection.isTLS ? "tls" : "tcp")
    self.framer = LineFramer(maxLineLength: context.configuration.maxLineLength)
    self.auth = SessionAuth(verifier: context.configuration.tokenVerifier)
    self.proxy = AuthProxyState(proxy: context.core.authProxy != nil, room: context.configuration.defaultRoom)
    connection.limits.maximumBuffered = context.configuration.maxBufferedPerConnection
    connection.byteCounter = context.stats.line
    connection.limits.farewellTime = context.configuration.slowConsumerFarewellTime
    connection.attach(self)
    rateLimit = context.configuration.limits.maxMessageRate.map {
      MessageRateLimiter(rate: $0, now: Deadline.now().nanoseconds)
    }
    byteLimit = context.configuration.limits.maxByteRate.map {
      MessageRateLimiter(
        rate: $0, strikesBeforeClose: MessageRateLimiter.byteRateStrikes, now: Deadline.now().nanoseconds)
    }
    context.sessions[memberID] = self
    context.metrics.tcpOpen.add(1, ordering: .relaxed)
    context.metrics.connectionsOpen.add(1, .line(tls: connection.isTLS))
    // In the room from the start (silently), so nothing sent meanwhile is lost; with tokens
    // required, only once one was accepted (LineSession+Auth.swift); with an auth proxy, only
    // once it admitted the connection (LineSession+AuthProxy.swift).
    if auth.isAdmitted, case .off = proxy {
      context.hub.join(
        self, shard: context.shard, name: "Client \(memberID.raw)", room: context.configuration.defaultRoom,
        announce: false)
    }
    // Timers find the session through the loop's table, not a weak capture: a weakly
    // referenced object takes the slow retain path on every fan-out delivery.
    nameTimer = context.loop.scheduleLocal(after: context.configuration.nameWait) { [context, memberID] in
      guard let self = context.sessions[memberID] as? LineSession, !self.closing else { return }
      self.decide(.notHTTP)
      self.ensureAnnounced()
    }
    if let idle = context.configuration.limits.idleTimeout { armIdle(after: idle) }
    armAuthDeadline()
  }

  // MARK: Input

  func stream(_ connection: ByteStream, didRead bytes: UnsafeRawBufferPointer) {
    guard !closing else { return }
    if mode == .undecided {
      firstBytes.append(contentsOf: bytes)
      let verdict = HTTPSniffer.classify(firstBytes)
      if verdict == .needMore {
        schedulePause()
        return
      }
      decide(verdict)
      if mode == .handedOff { return }
      framer.append(contentsOf: firstBytes)
      firstBytes = []
    } else if mode == .line {
      framer.append(bytes)
    } else {
      return
    }
    drainLines()
    schedulePause()
  }

  private func decide(_ verdict: HTTPSniffer.Verdict) {
    guard mode == .undecided else { return }
    if verdict == .http {
      mode = .handedOff
      held = []
      let bytes = firstBytes
      firstBytes = []
      detach()
      context.sessions[memberID] = nil
      context.metrics.tcpOpen.subtract(1, ordering: .relaxed)
      context.metrics.connectionsOpen.add(-1, .line(tls: connection.isTLS))
      context.core.httpHandoff(connection, bytes, context)
      return
    }
    mode = .line
    if !firstBytes.isEmpty {
      framer.append(contentsOf: firstBytes)
      firstBytes = []
    }
    for bytes in held { connection.write(bytes) }
    held = []
  }

  /// Handles the complete lines received, one at a time, while the connection takes
  /// output: past its high-water mark the rest wait (in the framer; the connection reads
  /// nothing more meanwhile) until it drains, so commands sent in one burst (`/history`
  /// after `/history`) cost one answer's bytes at a time, not all of theirs at once.
  private func drainLines() {
    while !closing, connection.isWritable, let output = framer.next() {
      switch output {
      case .line(let bytes):
        guard admitMessage(bytes: bytes.count + 1) else { continue }
        handle(line: LineDialect.decode(bytes))
      case .tooLong(let limit):
        context.metrics.linesTooLong.add(1, ordering: .relaxed)
        reply("! line too long (limit \(limit) bytes)")
      }
    }
  }

  private func schedulePause() {
    lastRead = context.loop.eventTime
    guard pauseTimer == nil else { return }
    armPause(after: context.configuration.linePause)
  }

  private func armPause(after delay: Duration) {
    pauseTimer = context.loop.scheduleLocal(after: delay) { [context, memberID] in
      guard let self = context.sessions[memberID] as? LineSession, !self.closing else { return }
      self.pauseTimer = nil
      let pause = self.context.configuration.linePause
      let quiet = Deadline.now().nanoseconds &- self.lastRead.nanoseconds
      if quiet < pause.nanoseconds {
        self.armPause(after: .nanoseconds(Int64(pause.nanoseconds - quiet)))
        return
      }
      self.flushPartial()
    }
  }

  /// The sender paused (or closed): what it sent without a newline is a message.
  private func flushPartial() {
    if mode == .undecided { decide(.notHTTP) }
    guard mode == .line else { return }
    // Lines still waiting for the connection to drain come first (the drain looks again).
    guard connection.isWritable else { return }
    if let partial = framer.takePartial(), admitMessage(bytes: partial.count) {
      handle(line: LineDialect.decode(partial))
    }
  }

  func streamDidReadEOF(_ connection: ByteStream) {
    flushPartial()
    connection.close()
  }

  func stream(_ connection: ByteStream, writabilityChanged writable: Bool) {
    guard writable, mode == .line, !closing else { return }
    drainLines()
    // What is left without a newline ends with a pause, counted from now.
    if connection.isWritable, framer.pendingCount > 0 { schedulePause() }
  }

  /// The slow-consumer contract (docs/BAD-INPUT.md): counted and logged once, out of the
  /// room at once, and the last line it gets says why.
  func streamIsTooSlow(_ connection: ByteStream) -> SharedBytes? {
    context.reportSlowConsumer(connection, member: memberID, dialect: "line")
    detach()
    return Self.tooSlow
  }

  /// The line a slow consumer gets in place of its backlog.
  static let tooSlow = SharedBytes(string: "! too slow, disconnected\n")

  func stream(_ connection: ByteStream, didCloseWith error: ByteStreamError?) {
    if let error, !error.isSlowConsumer {
      context.logger.debug(
        "closed",
        metadata: .connection(
          peer: connection.remoteAddress, member: memberID, dialect: "line", error: "\(error)"))
    }
    detach()
    context.sessions[memberID] = nil
    context.metrics.tcpOpen.subtract(1, ordering: .relaxed)
    context.metrics.connectionsOpen.add(-1, .line(tls: connection.isTLS))
    context.connectionClosed(connection)
  }

  /// Leaves the room and drops every timer and reference.
  func detach() {
    guard !closing else { return }
    closing = true
    pauseTimer?.cancel()
    nameTimer?.cancel()
    authTimer?.cancel()
    idleTimer?.cancel()
    if let typing {
      context.endTyping(typing, member: memberID)
      typing.timer?.cancel()
    }
    proxy.close()
    context.hub.leave(memberID)
  }

  // MARK: Output

  func receive(_ event: ChatEvent, cache: inout EncodingCache) {
    guard mode != .handedOff, !connection.isClosed else { return }
    // Without `presence` in its room the member gets no joined/left/renamed lines.
    if roomCapabilities != .all, case .presence = event, !roomCapabilities.contains(.presence) { return }
    guard let bytes = lineBytes(for: event, cache: &cache) else {
      // Typing has no line of its own: only a member with `/typing on` is told, here, off
      // the path of messages.
      if let typing, typing.receives, case .typing(let t, let origin) = event, t.active, origin != memberID {
        reply(LineDialect.typingNotice(author: t.author))
      }
      return
    }
    if mode == .undecided {
      held.append(bytes)
    } else {
      connection.write(bytes, immediately: cache.sendNow)
    }
    if case .shutdown = event { connection.close() }
  }

  private func write(_ bytes: SharedBytes) {
    if mode == .undecided {
      held.append(bytes)
    } else {
      connection.write(bytes)
    }
  }

  func reply(_ line: String) {
    write(SharedBytes(string: line + "\n"))
  }

  func quit() {
    detach()
    connection.close()
  }
}
