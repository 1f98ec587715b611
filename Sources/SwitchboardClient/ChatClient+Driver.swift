import SwitchboardDiscovery
import SwitchboardLog
import SwitchboardWebSocket

/// The connection loop behind ``ChatClient/run(isolation:_:)``: connect, serve one
/// connection with a reader, a writer and a heartbeat task, wait, reconnect.
extension ChatClient {
  func drive(_ events: AsyncStream<Event>.Continuation) async {
    var attempt = 0
    var reconnects = 0
    var finalError = ChatClientError.closed("the client was closed")
    let logger = configuration.logger.child(metadata: ["endpoint": endpoint.description])
    let watcher = configuration.pathMonitor.map { monitor in Task { await self.watchPath(monitor) } }
    defer { watcher?.cancel() }
    // A room or name the server would refuse is refused here, by its rule, before anything
    // is sent (a line server would otherwise keep the member in its default room).
    if let refusal = ChatRefusal.check(room: state.withLock({ $0.room }), name: name) {
      state.withLock { _ = $0.link.refuse(refusal) }
    }
    loop: while !Task.isCancelled {
      if let refusal = state.withLock({ $0.link.refusal }) {
        finalError = .refused(refusal)
        logger.error("refused", metadata: ["reason": refusal.reason])
        events.yield(.error(finalError))
        break loop
      }
      // Read before the state: a ring after this ends the wait below, or shows after the attempt.
      let seen = wakeup.generation
      switch state.withLock({ $0.step }) {
      case .stop: break loop
      case .wait:
        logger.info("suspended")
        await wakeup.wait(since: seen, until: nil)
        attempt = 0
        continue
      case .connect:
        do {
          let (connection, url, service) = try await open(logger: logger)
          let connectedAt = wakeup.generation
          let step = state.withLock { s -> ChatClientState.Step in
            if case .connect = s.step {
              s.link.opened(connection)
              s.typing.connected()
            }
            return s.step
          }
          guard case .connect = step, !Task.isCancelled else {
            // Suspended or closed while connecting.
            connection.close()
            continue
          }
          attempt = 0
          logger.info("connected", metadata: ["reconnects": "\(reconnects)"])
          events.yield(
            .connected(
              Connection(
                transport: endpoint.scheme, url: url, headers: connection.headers, reconnects: reconnects,
                service: service)))
          reconnects += 1
          var (reason, code) = await serve(connection, events: events, until: connectedAt)
          let (resumes, suspended) = state.withLock { s in (s.connectionLost(), s.isSuspended) }
          for resume in resumes { resume.run() }
          if suspended { (reason, code) = ("suspended", nil) }
          logger.info("disconnected", metadata: ["reason": reason, "code": code.map { "\($0)" } ?? "none"])
          events.yield(.disconnected(reason: reason, code: code))
          // A refusal ends the loop at the top, before any backoff.
          if state.withLock({ $0.link.refusal }) != nil { continue }
        } catch {
          if Task.isCancelled || isStopping { break loop }
          if error == .refused, let refusal = error.refusal {
            state.withLock { _ = $0.link.refuse(refusal) }
            continue
          }
          logger.warning("connect failed", metadata: ["error": "\(error)"])
          events.yield(.error(error))
        }
      }
      if Task.isCancelled || isStopping { break loop }
      let now = wakeup.generation
      if now != seen {
        // Asked for during the attempt (reconnectNow, a path change, suspend): no backoff.
        attempt = 0
        continue
      }
      if configuration.reconnect.maxAttempts != 0 && !state.withLock({ $0.path.isSatisfied }) {
        // No network: attempts now would all fail; the path coming back rings.
        logger.info("waiting for the network")
        await wakeup.wait(since: now, until: nil)
        attempt = 0
        continue
      }
      attempt += 1
      guard let delay = configuration.reconnect.delay(forAttempt: attempt) else {
        let tries = configuration.reconnect.maxAttempts ?? 0
        finalError = tries == 0 ? .closed("the connection ended (reconnect policy: never)") : .gaveUp("gave up after \(tries) reconnect attempts")
        if tries > 0 { events.yield(.error(finalError)) }
        logger.error("stopped reconnecting", metadata: ["error": "\(finalError)"])
        break loop
      }
      logger.info("reconnecting", metadata: ["attempt": "\(attempt)", "delay": "\(delay)"])
      events.yield(.reconnecting(attempt: attempt, delay: delay))
      // close(), suspend(), resume() and reconnectNow() ring: the wait ends at once.
      if await wakeup.wait(since: now, until: .now + delay) { attempt = 0 }
    }
    let resumes = state.withLock { s -> [ChatResume] in
      s.phase = .stopped
      return s.failAll(finalError)
    }
    for resume in resumes { resume.run() }
    events.finish()
  }

  private var isStopping: Bool { state.withLock { $0.isStopping } }

  /// One connect attempt: resolves a service endpoint (again on every attempt: the server may
  /// have moved), then tries its addresses in order. Returns the connection, the URL it
  /// reached and the service it was resolved from.
  private func open(logger: Log) async throws(ChatClientError)
    -> (any ChatTransportConnection, String, MDNSResolvedService?)
  {
    var targets = [endpoint]
    var found: MDNSResolvedService?
    if let service = endpoint.service {
      let resolved = try await configuration.resolver.resolve(service)
      targets = endpoint.endpoints(resolvedAs: resolved)
      let addresses = targets.map(\.host).joined(separator: ",")
      logger.info(
        "resolved", metadata: ["host": resolved.host, "port": "\(resolved.port)", "addresses": addresses])
      guard !targets.isEmpty else { throw .serviceNotFound("\(service) resolved to no address") }
      found = resolved
    }
    var lastError = ChatClientError.connectFailed("no address to connect to")
    // Once per attempt, whichever address answers.
    let token = try await currentToken()
    for target in targets {
      if Task.isCancelled || isStopping { break }
      let request = connectParameters(target, token: token)
      do {
        let connection = try await configuration.transport.connect(request)
        return (connection, target.scheme == .ws ? request.webSocketURL : target.description, found)
      } catch {
        // Another address of the service would refuse alike.
        if error == .refused { throw error }
        if targets.count > 1 {
          logger.debug("address failed", metadata: ["address": target.description, "error": "\(error)"])
        }
        lastError = error
      }
    }
    throw lastError
  }

  /// What the transport is asked to open: the WebSocket URL to `target` (with the resume
  /// point), the line/UDP hello and the configuration's transport settings.
  private func connectParameters(_ target: ChatEndpoint, token: String?) -> ChatTransportRequest {
    let resume = state.withLock { $0.resumption }
    let resumeFrom: UInt64? = resume.isResuming ? (resume.lastID ?? 0) : nil
    let url = target.webSocketURL(
      room: room, name: name, since: resumeFrom, epoch: resume.isResuming ? resume.epoch : nil,
      token: token)
    var hello: [String] = []
    if let token, target.scheme == .tcp || target.scheme == .tls { hello.append("auth:" + token) }
    // An empty name leaves the naming to the server (`iam:` alone is refused).
    if !name.trimmingWhitespace.isEmpty { hello.append("iam:" + name) }
    if let room { hello.append("/join " + room) }
    // After the `/join`, so that its answer is the join's (ChatClientState.answersJoin).
    hello += state.withLock { $0.typing.helloLines }
    return ChatTransportRequest(
      endpoint: target, webSocketURL: url, hello: target.scheme == .ws || target.scheme == .wss ? [] : hello,
      connectTimeout: configuration.connectTimeout, tls: configuration.tls, compression: configuration.compression,
      keepAlive: configuration.heartbeat.isEnabled ? configuration.heartbeat.interval : nil,
      eventLoopGroup: configuration.eventLoopGroup, logger: configuration.logger)
  }

  /// Runs one connection until it ends, or until a ring after generation `seen` (suspend,
  /// reconnect now, close: the connection is being closed, and a dead one would keep its
  /// reader waiting for the close handshake); returns why.
  private func serve(
    _ connection: any ChatTransportConnection, events: AsyncStream<Event>.Continuation, until seen: UInt64
  ) async -> (String, WebSocketCloseCode?) {
    let (kicks, kick) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let readyNow = state.withLock { s -> Bool in
      // WebSocket: the history answers the connect; lines: the answer to the hello's `/join`.
      let joins = self.room != nil && (s.scheme == .tcp || s.scheme == .tls)
      return s.link.served(kick: kick, answersConnect: s.scheme == .ws || s.scheme == .wss || joins)
    }
    if readyNow { kick.yield() }
    // The features asked for go first, before the writer starts: the first `unknown_type`
    // from an older server then answers them (ChatClientState.receive).
    if let hello = state.withLock({ $0.typing.webSocketHello }) { try? await connection.send(hello) }
    let heartbeat = configuration.heartbeat
    let result = await withTaskGroup(of: (String, WebSocketCloseCode?)?.self) { group in
      group.addTask { await self.read(connection, events: events) }
      group.addTask {
        await self.write(connection, kicks: kicks, events: events)
        return nil
      }
      if heartbeat.isEnabled {
        group.addTask { await self.beat(connection, heartbeat: heartbeat, events: events) }
      }
      group.addTask {
        await self.wakeup.wait(since: seen, until: nil)
        return Task.isCancelled ? nil : ("closed by the client", nil)
      }
      var outcome: (String, WebSocketCloseCode?) = ("closed", nil)
      while let next = await group.next() {
        if let next {
          outcome = next
          break
        }
      }
      connection.close()
      kick.finish()
      group.cancelAll()
      return outcome
    }
    return result
  }

  private func read(_ connection: any ChatTransportConnection, events: AsyncStream<Event>.Continuation) async
    -> (String, WebSocketCloseCode?)
  {
    var pending: [Event] = []
    var resumes: [ChatResume] = []
    let logger = configuration.logger.child(metadata: ["endpoint": endpoint.description])
    for await input in connection.inputs {
      switch input {
      case .text(let text):
        if ChatClient.isTokenNotice(text) { refreshToken(events: events, logger: logger) }
        let (kick, refused) = state.withLock { s -> (AsyncStream<Void>.Continuation?, ChatRefusal?) in
          if let event = s.heard() { pending.append(event) }
          let kick = s.receive(text, events: &pending, resumes: &resumes) ? s.link.kick : nil
          return (kick, s.link.refusal)
        }
        for resume in resumes { resume.run() }
        resumes.removeAll(keepingCapacity: true)
        var goingAway: String?
        for event in pending {
          events.yield(event)
          switch event {
          case .reconnectSuggested(let reason): goingAway = reason
          case .history(let messages, let recovered, let epoch):
            // What a resume delivered: the trail a repeated or missing message is traced by.
            logger.info(
              "history",
              metadata: [
                "delivered": "\(messages.count)", "first": messages.first?.id.map { "\($0)" } ?? "none",
                "last": messages.last?.id.map { "\($0)" } ?? "none", "recovered": "\(recovered)",
                "epoch": epoch ?? "none",
              ])
          case .gap(let since, let epoch):
            logger.info("gap", metadata: ["since": since.map { "\($0)" } ?? "none", "epoch": epoch ?? "none"])
          default: break
          }
        }
        pending.removeAll(keepingCapacity: true)
        // Refused for good: the connection ends here, and the loop after it.
        if let refused { return (refused.reason, nil) }
        kick?.yield()
        // UDP has no connection for the server to close: leave, and rejoin (iam:) the
        // server that replaces it.
        if let goingAway, endpoint.scheme == .udp { return (goingAway, nil) }
      case .ping, .pong:
        if let event = state.withLock({ $0.heard() }) { events.yield(event) }
        events.yield(input.isPing ? .ping : .pong)
      case .closed(let code, let reason):
        if let refusal = ChatRefusal.close(code: code, reason: reason) {
          state.withLock { s in if !s.isRenewable(refusal) { _ = s.link.refuse(refusal) } }
        }
        return (reason, code)
      }
    }
    return ("connection lost", nil)
  }

  private func write(
    _ connection: any ChatTransportConnection, kicks: AsyncStream<Void>, events: AsyncStream<Event>.Continuation
  ) async {
    let isLine = endpoint.scheme == .tcp || endpoint.scheme == .tls
    // With `.handled` the server's reply completes the send (ChatClientState.receive).
    let completesOnWrite = isLine && configuration.lineSendCompletion == .written
    for await _ in kicks {
      // A fresh token first: the server closes the connection when the old one runs out.
      if let refresh = state.withLock({ $0.takeRefresh() }) {
        do { try await connection.send(refresh) } catch { return }
      }
      // Members and rooms requests (ChatClientState+Queries.swift), written here so that
      // they take their place among the messages' `/who` lines in the server's order.
      // A typing signal (ChatClient+Typing.swift): ephemeral, so it is not queued across
      // connections.
      if let signal = state.withLock({ $0.takeTypingWire() }) {
        do { try await connection.send(signal) } catch { return }
      }
      while let query = state.withLock({ $0.nextQueryToWrite() }) {
        do { try await connection.send(query) } catch { return }
      }
      while let item = state.withLock({ $0.nextToWrite() }) {
        do {
          for unit in item.wire { try await connection.send(unit) }
        } catch {
          return
        }
        if completesOnWrite {
          // The line dialect never echoes a member's own message: report it here.
          let resume = state.withLock { $0.written(ref: item.ref) }
          resume?.run()
          let me = state.withLock { $0.me }
          let room = state.withLock { $0.room }
          events.yield(.message(Message(room: room, author: me, text: item.text, isMine: true, isAction: item.isAction)))
        }
      }
    }
  }

  private func beat(
    _ connection: any ChatTransportConnection, heartbeat: Heartbeat, events: AsyncStream<Event>.Continuation
  ) async -> (String, WebSocketCloseCode?)? {
    let tick = max(min(heartbeat.interval, heartbeat.timeout) / 4, .milliseconds(10))
    while !Task.isCancelled {
      try? await Task.sleep(for: tick)
      if Task.isCancelled { return nil }
      let action = state.withLock { $0.heartbeatTick(heartbeat) }
      switch action {
      case .none: break
      case .probe: await connection.probe()
      case .notViable: events.yield(.viabilityChanged(false))
      case .dead, .notViableAndDead:
        if case .notViableAndDead = action { events.yield(.viabilityChanged(false)) }
        events.yield(.error(.heartbeatTimeout("no answer to a heartbeat probe within \(heartbeat.timeout)")))
        return ("heartbeat timed out after \(heartbeat.timeout)", nil)
      }
    }
    return nil
  }
}

extension ChatTransportInput {
  fileprivate var isPing: Bool {
    if case .ping = self { return true }
    return false
  }
}
