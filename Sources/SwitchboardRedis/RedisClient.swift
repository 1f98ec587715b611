import SwitchboardIO
import SwitchboardRESP

/// A Redis client on one of Switchboard's event loops: one connection, pipelined (every
/// command is written at once and replies are matched in order), reconnecting with back-off.
///
/// ```swift
/// let configuration = try RedisConfiguration("redis://127.0.0.1:6379")
/// let redis = try await RedisClient.connect(configuration: configuration, on: loop)
/// let reply = try await redis.send(RESPCommand("INCR", "counter"))      // .integer(1)
/// ```
///
/// Three ways to send, one connection underneath:
/// - on ``loop`` itself, ``send(_:timeout:_:)`` — plain synchronous code, the completion runs
///   on the loop (what a server's loop-bound code uses, without a hop);
/// - from any thread, ``send(_:timeout:completeOn:_:)`` — the completion runs on the loop you
///   name (your own);
/// - from a task, `try await send(_:)`.
///
/// The connection's life is a ``RedisConnectionState`` (``state``, and the `stateHandler`):
/// `connecting → handshaking → ready`, and after a loss `backingOff → connecting …` until
/// ``close()``. Commands asked for while not ready wait (bounded by
/// ``RedisConfiguration/maxPendingCommands``) until the connection is ready or their timeout
/// passes. Commands already sent when the connection is lost fail with
/// ``RedisError/Kind/connectionLost`` and are not re-sent: they may have run. A command
/// that gets no reply within its timeout fails with ``RedisError/Kind/timeout``, and the
/// connection is reset and made again (a server that late is treated as unreachable).
public final class RedisClient: Sendable {
  /// The loop the connection lives on.
  public let loop: EventLoop
  /// How it connects.
  public let configuration: RedisConfiguration
  private let handle: RedisHandle

  /// Starts connecting to `configuration.url` on `loop` (returns at once; commands wait for
  /// the connection). `stateHandler` hears every state change, on the loop.
  public init(
    configuration: RedisConfiguration, on loop: EventLoop,
    stateHandler: (@Sendable (RedisConnectionState) -> Void)? = nil
  ) {
    self.loop = loop
    self.configuration = configuration
    handle = RedisHandle(
      configuration: configuration, loop: loop, role: .commands, stateHandler: stateHandler)
  }

  /// Connects and returns once the connection is ready.
  /// - Throws: ``RedisError`` when the first attempt fails (refused, TLS, login, timeout):
  ///   the client is then closed — a server unreachable at start is an error, not a retry.
  public static func connect(
    configuration: RedisConfiguration, on loop: EventLoop,
    stateHandler: (@Sendable (RedisConnectionState) -> Void)? = nil
  ) async throws(RedisError) -> RedisClient {
    let client = RedisClient(configuration: configuration, on: loop, stateHandler: stateHandler)
    try await client.handle.connected()
    return client
  }

  deinit { handle.closeLater() }

  /// The connection's state now.
  public var state: RedisConnectionState { handle.observer.state }

  /// The last connection error (why the last attempt failed or the connection was lost).
  public var lastError: RedisError? { handle.observer.lastError }

  /// Closes the connection; commands waiting or in flight fail with ``RedisError/Kind/closed``.
  public func close() { handle.close() }

  // MARK: On the loop

  /// Sends `command`; `completion` gets the reply (an error reply as
  /// ``RedisError/Kind/server``) on the loop. Call on ``loop`` only.
  /// - Parameter timeout: overrides ``RedisConfiguration/commandTimeout``.
  public func send(
    _ command: RESPCommand, timeout: Duration? = nil,
    _ completion: @escaping (Result<RESPValue, RedisError>) -> Void
  ) {
    handle.connection.value.send(command, timeout: timeout, completion)
  }

  /// Runs `script` with `EVALSHA`, or `EVAL` when this connection has not sent it yet or
  /// the server answers `NOSCRIPT` (see ``RedisScript``). Call on ``loop`` only.
  public func eval(
    _ script: RedisScript, keys: [[UInt8]], arguments: [[UInt8]], timeout: Duration? = nil,
    _ completion: @escaping (Result<RESPValue, RedisError>) -> Void
  ) {
    handle.connection.value.eval(script, keys: keys, arguments: arguments, timeout: timeout, completion)
  }

  // MARK: From anywhere

  /// Sends `command` from any thread; `completion` runs on `target`.
  public func send(
    _ command: RESPCommand, timeout: Duration? = nil, completeOn target: EventLoop,
    _ completion: @escaping @Sendable (Result<RESPValue, RedisError>) -> Void
  ) {
    handle.run { connection in
      connection.send(command, timeout: timeout) { result in
        if target.inEventLoop { completion(result) } else { target.execute { completion(result) } }
      }
    }
  }

  /// Sends `command` and waits for its reply.
  /// - Throws: ``RedisError``: the server's error reply, a timeout, a lost connection.
  public func send(_ command: RESPCommand, timeout: Duration? = nil) async throws(RedisError) -> RESPValue {
    try await handle.call { connection, done in connection.send(command, timeout: timeout, done) }.get()
  }

  /// Sends `commands` together (one write) and waits for all replies, in order.
  public func pipeline(
    _ commands: [RESPCommand], timeout: Duration? = nil
  ) async -> [Result<RESPValue, RedisError>] {
    guard !commands.isEmpty else { return [] }
    return await handle.call { connection, done in
      var results = [Result<RESPValue, RedisError>?](repeating: nil, count: commands.count)
      var remaining = commands.count
      for (index, command) in commands.enumerated() {
        connection.send(command, timeout: timeout) { result in
          results[index] = result
          remaining -= 1
          if remaining == 0 { done(results.map { $0! }) }
        }
      }
    }
  }

  /// Runs `script` (see ``eval(_:keys:arguments:timeout:_:)``) and waits for its result.
  public func eval(
    _ script: RedisScript, keys: [String] = [], arguments: [String] = [], timeout: Duration? = nil
  ) async throws(RedisError) -> RESPValue {
    let keyBytes = keys.map { Array($0.utf8) }
    let argumentBytes = arguments.map { Array($0.utf8) }
    return try await handle.call { connection, done in
      connection.eval(script, keys: keyBytes, arguments: argumentBytes, timeout: timeout, done)
    }.get()
  }

  /// The connection's counters now.
  public func statistics() async -> RedisStatistics { await handle.statistics() }
}
