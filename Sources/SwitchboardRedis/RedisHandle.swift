import SwitchboardIO

/// What ``RedisClient`` and ``RedisSubscriber`` share: their loop-side ``RedisConnection``,
/// reached from any thread, and its ``RedisObserver``.
struct RedisHandle: Sendable {
  let loop: EventLoop
  let connection: LoopBound<RedisConnection>
  let observer: RedisObserver

  /// Makes the connection and starts it on `loop`.
  init(
    configuration: RedisConfiguration, loop: EventLoop, role: RedisConnection.Role,
    stateHandler: (@Sendable (RedisConnectionState) -> Void)?,
    messageHandler: (@Sendable (RedisPubSubMessage) -> Void)? = nil
  ) {
    self.loop = loop
    let observer = RedisObserver(handler: stateHandler)
    self.observer = observer
    let engine = RedisConnection(loop: loop, configuration: configuration, role: role, observer: observer)
    engine.messageHandler = messageHandler
    connection = LoopBound(sending: engine, on: loop)
    let connection = connection
    loop.execute { connection.value.start() }
  }

  /// Runs `body` with the connection on its loop (at once when already there).
  func run(_ body: @escaping @Sendable (RedisConnection) -> Void) {
    let connection = connection
    if loop.inEventLoop { body(connection.value) } else { loop.execute { body(connection.value) } }
  }

  /// Runs `body` on the loop and waits for what it hands to its callback.
  func call<T: Sendable>(_ body: @escaping @Sendable (RedisConnection, @escaping (T) -> Void) -> Void) async
    -> T
  {
    await withCheckedContinuation { continuation in
      run { connection in body(connection) { continuation.resume(returning: $0) } }
    }
  }

  /// Waits for the first connection attempt's outcome; closes the connection if it failed.
  func connected() async throws(RedisError) {
    if case .failure(let error) = await observer.firstOutcome() {
      close()
      throw error
    }
  }

  func close() { run { $0.close() } }

  /// The close for a `deinit`: always queued, never run inline.
  func closeLater() {
    let connection = connection
    loop.execute { connection.value.close() }
  }

  func statistics() async -> RedisStatistics {
    await call { connection, done in done(connection.statistics) }
  }
}
