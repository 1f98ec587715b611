/// An app's lifecycle: suspend and resume around the background, reconnect now, network
/// path changes (docs/CLIENT.md, "App lifecycle").
extension ChatClient {
  /// Closes the connection politely and stops reconnecting, without ending
  /// ``run(isolation:_:)`` or its event stream: the state an app wants in the background,
  /// where the system suspends its sockets anyway.
  ///
  /// What it keeps: the outbox (sends made before or while suspended wait, at most
  /// ``Configuration/maxQueuedMessages``, and go out in order after ``resume()``; one written
  /// but not yet acknowledged is completed from the resumed history rather than sent twice)
  /// and the resume point (``resumePoint``). The stream reports the end of the connection
  /// (``Event/disconnected(reason:code:)``, reason `suspended`) and then nothing until
  /// ``resume()``.
  ///
  /// Safe from any thread and idempotent. It acts only while the client runs (before
  /// ``run(isolation:_:)`` and after ``close()`` it does nothing).
  public func suspend() {
    let connection = state.withLock { s -> (any ChatTransportConnection)?? in
      s.suspend() ? .some(s.link.transport) : nil
    }
    guard let connection else { return }
    wakeup.ring()
    connection?.close()
  }

  /// Ends a ``suspend()``: connects at once (no backoff, the attempt count starts over) and
  /// resumes from the last message id, so what was missed meanwhile arrives exactly once
  /// (WebSocket), then the sends that waited go out in order.
  ///
  /// Safe from any thread and idempotent; does nothing when the client is not suspended.
  public func resume() {
    if state.withLock({ $0.resume() }) { wakeup.ring() }
  }

  /// Drops the current connection, or cuts the wait before the next attempt short, and
  /// connects at once with the attempt count reset: for when the app knows better than the
  /// heartbeat (the network came back, the user pulled to refresh). Delivery is as for any
  /// reconnect: resumed from the last id, the outbox kept.
  ///
  /// Safe from any thread; calls made while a connect is under way let it finish. Does nothing
  /// while the client is suspended (``resume()`` connects), not yet running or closed.
  public func reconnectNow() {
    let connection = state.withLock { s -> (any ChatTransportConnection)?? in
      s.acceptsReconnectNow ? .some(s.link.transport) : nil
    }
    guard let connection else { return }
    wakeup.ring()
    connection?.close()
  }

  /// Reports a network path change, for an app that watches the path itself (leave
  /// ``Configuration/pathMonitor`` `nil` then, or both will report).
  ///
  /// The first report is taken as the path the client starts on. After it: a path that is
  /// satisfied again, or satisfied over another set of interfaces (Wi-Fi to cellular),
  /// acts as ``reconnectNow()``, since the old socket may be dead without a word; an
  /// unsatisfied path keeps the connection (it may come back) but makes a lost connection
  /// wait for a satisfied path instead of spending reconnect attempts. While suspended
  /// the path is recorded and nothing else happens. Safe from any thread.
  public func networkPathChanged(_ path: ChatNetworkPath) {
    let action = state.withLock { $0.path.update(path) }
    let logger = configuration.logger.child(metadata: ["endpoint": endpoint.description])
    switch action {
    case .none: break
    case .reconnectNow:
      logger.info("network path changed: reconnecting now", metadata: ["interfaces": "\(path.interfaces)"])
      reconnectNow()
    case .waitForNetwork:
      // Nothing to wake: the loop looks at the path when an attempt or a connection ends.
      logger.info("network path unsatisfied")
    }
  }

  /// Feeds ``Configuration/pathMonitor`` into ``networkPathChanged(_:)`` until cancelled.
  func watchPath(_ monitor: any ChatPathMonitor) async {
    for await path in monitor.paths() {
      if Task.isCancelled { break }
      networkPathChanged(path)
    }
  }
}

extension ChatClientState {
  /// `running` → `suspended`; whether it changed.
  mutating func suspend() -> Bool {
    switch phase {
    case .running:
      phase = .suspended
      return true
    case .idle, .suspended, .stopping, .stopped:
      return false
    }
  }

  /// `suspended` → `running`; whether it changed.
  mutating func resume() -> Bool {
    switch phase {
    case .suspended:
      phase = .running
      return true
    case .idle, .running, .stopping, .stopped:
      return false
    }
  }

  /// Whether the app suspended the client (a connection ending now ended for that).
  var isSuspended: Bool {
    switch phase {
    case .suspended: true
    case .idle, .running, .stopping, .stopped: false
    }
  }

  /// Whether ``ChatClient/reconnectNow()`` applies: only while running.
  var acceptsReconnectNow: Bool {
    switch phase {
    case .running: true
    case .idle, .suspended, .stopping, .stopped: false
    }
  }

  /// What the connection loop does next.
  enum Step {
    /// Connect (or keep the connection just made).
    case connect
    /// Wait for a ring: suspended.
    case wait
    /// End the loop.
    case stop
  }

  var step: Step {
    switch phase {
    case .idle, .running: .connect
    case .suspended: .wait
    case .stopping, .stopped: .stop
    }
  }
}
