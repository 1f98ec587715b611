import SwitchboardIO
import SwitchboardRESP

extension RedisConnection {
  /// `HELLO 3` (with `AUTH` and `SETNAME`), falling back to RESP2 when the server refuses
  /// it; or RESP2's `AUTH`. Then `SELECT`, and for a subscriber its subscriptions. Each
  /// step waits for the one before; any refusal ends the attempt.
  func startHandshake() {
    let url = configuration.url
    switch configuration.protocolVersion {
    case .resp3:
      var hello = RESPCommand("HELLO", "3")
      if let password = url.password {
        hello.append("AUTH")
        hello.append(url.user ?? "default")
        hello.append(password)
      }
      if let name = configuration.clientName {
        hello.append("SETNAME")
        hello.append(name)
      }
      handshakeStep(hello) { connection, result in
        switch result {
        case .success:
          connection.protocolVersion = 3
          connection.selectDatabase()
        case .failure(let error) where Self.refusesHello(error):
          connection.statistics.resp2Fallbacks += 1
          connection.logger.info(
            "the server refused HELLO 3; speaking RESP2", metadata: ["error": "\(error)"])
          connection.protocolVersion = 2
          connection.authenticate()
        case .failure(let error):
          connection.attemptFailed(Self.refusal("HELLO", error))
        }
      }
    case .resp2:
      protocolVersion = 2
      authenticate()
    }
  }

  /// Whether a `HELLO` error means "no RESP3 here" (Redis before 6 answers `unknown
  /// command`, a server without RESP3 `NOPROTO`), as opposed to a refused login.
  static func refusesHello(_ error: RedisError) -> Bool {
    guard error.kind == .server else { return false }
    return error.prefix == "NOPROTO" || error.message.lowercased().contains("unknown command")
  }

  private static func refusal(_ step: String, _ error: RedisError) -> RedisError {
    guard error.kind == .server else { return error }
    return RedisError(.connectFailed, "\(step) refused: \(error.message)", prefix: error.prefix)
  }

  /// RESP2 login: `AUTH [user] password`, and the connection's name.
  private func authenticate() {
    let url = configuration.url
    guard let password = url.password else { return nameConnection() }
    let auth = url.user.map { RESPCommand("AUTH", $0, password) } ?? RESPCommand("AUTH", password)
    handshakeStep(auth) { connection, result in
      switch result {
      case .success: connection.nameConnection()
      case .failure(let error): connection.attemptFailed(Self.refusal("AUTH", error))
      }
    }
  }

  private func nameConnection() {
    guard let name = configuration.clientName else { return selectDatabase() }
    handshakeStep(RESPCommand("CLIENT", "SETNAME", name)) { connection, result in
      switch result {
      case .success: connection.selectDatabase()
      case .failure(let error): connection.attemptFailed(Self.refusal("CLIENT SETNAME", error))
      }
    }
  }

  private func selectDatabase() {
    let database = configuration.url.database
    guard database != 0 else { return resubscribe() }
    handshakeStep(RESPCommand("SELECT", String(database))) { connection, result in
      switch result {
      case .success: connection.resubscribe()
      case .failure(let error): connection.attemptFailed(Self.refusal("SELECT", error))
      }
    }
  }

  /// A subscriber's subscriptions again, on the new connection; ready once all are confirmed.
  private func resubscribe() {
    let generation = generation
    let sent = sendSubscriptions(deadline: Deadline.now().adding(configuration.connectTimeout)) {
      [weak self] result in
      guard let self, self.generation == generation, case .handshaking = self.state else { return }
      switch result {
      case .success: self.becomeReady()
      case .failure(let error): self.attemptFailed(error)
      }
    }
    if !sent { becomeReady() }
  }

  /// Sends one handshake command; `next` runs only if this is still the same attempt.
  private func handshakeStep(
    _ command: RESPCommand, _ next: @escaping (RedisConnection, Result<RESPValue, RedisError>) -> Void
  ) {
    let generation = generation
    sendNow(command, deadline: Deadline.now().adding(configuration.connectTimeout)) { [weak self] result in
      guard let self, self.generation == generation, case .handshaking = self.state else { return }
      next(self, result)
    }
  }
}
