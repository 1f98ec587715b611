import SwitchboardIO
import SwitchboardRESP

extension RedisConnection {
  /// Sends `command` once the connection is ready (at once if it is); `completion` gets
  /// the reply — an error reply as ``RedisError/Kind/server`` — on the loop.
  func send(_ command: RESPCommand, timeout: Duration?, _ completion: @escaping Completion) {
    if state == .closed { return completion(.failure(.closed())) }
    if role == .commands, Self.changesReplyMode(command) {
      return completion(
        .failure(
          RedisError(.unsupported, "\(command.name) changes how the server answers: use a RedisSubscriber")))
    }
    guard pendingCount < configuration.maxPendingCommands else {
      return completion(
        .failure(.limit("\(configuration.maxPendingCommands) commands already waiting (maxPendingCommands)")))
    }
    let deadline = Deadline.now().adding(timeout ?? configuration.commandTimeout)
    if state.isReady {
      write(command)
      inFlight.append(Pending(command: nil, deadline: deadline, completion: completion))
    } else {
      waiting.append(Pending(command: command, deadline: deadline, completion: completion))
    }
  }

  /// Commands after which the server's answers are no longer one reply per command.
  private static let replyModeCommands: Set<String> = [
    "SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE", "MONITOR",
  ]

  /// Whether `command` is one of ``replyModeCommands``. The length and the first and last
  /// letters (`S`/`P`/`U`/`M` … `E`/`R`) are checked first, so `GET`, `PUBLISH`, `EVALSHA`
  /// and the other everyday commands cost no upper-casing.
  static func changesReplyMode(_ command: RESPCommand) -> Bool {
    guard let name = command.arguments.first, (7...12).contains(name.count), let first = name.first,
      let last = name.last
    else { return false }
    guard "SPUMspum".utf8.contains(first), "ERer".utf8.contains(last) else { return false }
    return replyModeCommands.contains(command.name)
  }

  /// Runs `script`: `EVAL` on its first use on this connection, `EVALSHA` afterwards, and
  /// `EVAL` again when the server answers `NOSCRIPT`.
  func eval(
    _ script: RedisScript, keys: [[UInt8]], arguments: [[UInt8]], timeout: Duration?,
    _ completion: @escaping Completion
  ) {
    let tail = [Array(String(keys.count).utf8)] + keys + arguments
    let evalCommand = RESPCommand(bytes: [Array("EVAL".utf8), Array(script.source.utf8)] + tail)
    guard scripts.contains(script.sha1) else {
      // EVAL caches the script on the server: later runs on this connection use its SHA-1.
      scripts.insert(script.sha1)
      return send(evalCommand, timeout: timeout, completion)
    }
    let shaCommand = RESPCommand(bytes: [Array("EVALSHA".utf8), Array(script.sha1.utf8)] + tail)
    send(shaCommand, timeout: timeout) { [weak self] result in
      guard case .failure(let error) = result, error.prefix == "NOSCRIPT", let self else {
        return completion(result)
      }
      self.statistics.noscriptFallbacks += 1
      self.send(evalCommand, timeout: timeout, completion)
    }
  }

  /// Routes one value from the server: a push (or, under RESP2, a subscriber's message
  /// array) to the subscriptions, anything else to the oldest command in flight.
  func receive(_ value: RESPValue) {
    if case .push(let items) = value {
      if role == .subscriber {
        // RESP3 replies are never pushes: a push that is no pub/sub event is dropped.
        if !subscriberEvent(items) { statistics.ignoredPushes += 1 }
      } else {
        statistics.ignoredPushes += 1
      }
      return
    }
    if role == .subscriber, protocolVersion == 2, case .array(let items) = value, subscriberEvent(items) {
      return
    }
    reply(value)
  }

  private func reply(_ value: RESPValue) {
    guard let pending = inFlight.popFirst() else {
      return lose(.protocolError("a reply nobody asked for: \(value)"))
    }
    statistics.replies += 1
    if let message = value.errorMessage {
      pending.completion(.failure(.server(message)))
    } else {
      pending.completion(.success(value))
    }
  }
}
