import SwitchboardIO
import SwitchboardRESP

/// A Redis Cluster client on one of Switchboard's event loops: one ``RedisClient`` per
/// master, each command sent to the master that serves its key's slot.
///
/// ```swift
/// let seed = try RedisConfiguration("redis://127.0.0.1:7000")
/// let cluster = try await RedisClusterClient.connect(seeds: [seed], on: loop)
/// let reply = try await cluster.send(RESPCommand("INCR", "{room}:counter"))
/// ```
///
/// - **Slots**: a key's slot is ``RedisKeySlot`` (CRC16 with the `{hash tag}` rule); the
///   map of slots to masters comes from `CLUSTER SLOTS`, read from the first seed that
///   answers, again every ``refreshInterval`` and soon after a redirect or a lost node.
/// - **Routing**: by the first key (`KEYS[1]` for `EVAL`/`EVALSHA`); commands without a key
///   go to any master. Scripts are cached per node: each node's connection sends `EVAL`
///   first and answers its own `NOSCRIPT`.
/// - **Redirects**: `MOVED` updates the slot's master and sends the command there; `ASK`
///   sends `ASKING` and the command to the importing node (the map stays); at most
///   ``RedisClusterRouter/maxRedirects`` per command.
/// - **Retries**: `TRYAGAIN`, `CLUSTERDOWN`, `MASTERDOWN` and `LOADING` are retried with a
///   back-off (10 ms doubling to 250 ms) until the command's timeout. A command whose
///   connection was lost is not re-sent (it may have run), as on ``RedisClient``.
///
/// The ``state`` is the cluster's as a whole: `ready` once the map is known (and again when
/// every master's connection is back), `backingOff` when every seed failed before any map,
/// or a master's connection was lost.
public final class RedisClusterClient: Sendable {
  /// The loop every node connection lives on.
  public let loop: EventLoop
  /// The seeds; every other node is reached with the first seed's settings and its own
  /// address.
  public let seeds: [RedisConfiguration]
  private let router: LoopBound<RedisClusterRouter>
  private let observer: RedisObserver
  let watch = RedisClusterWatch()

  /// Starts reading the map from `seeds` on `loop` (returns at once; commands wait for the
  /// map). `stateHandler` hears the cluster's state changes, on the loop.
  /// - Parameter refreshInterval: how often the map is read again without a reason.
  public init(
    seeds: [RedisConfiguration], on loop: EventLoop, refreshInterval: Duration = .seconds(5),
    stateHandler: (@Sendable (RedisConnectionState) -> Void)? = nil
  ) {
    precondition(!seeds.isEmpty, "a cluster client needs at least one seed")
    self.loop = loop
    self.seeds = seeds
    let observer = RedisObserver(handler: stateHandler)
    self.observer = observer
    let engine = RedisClusterRouter(
      seeds: seeds, refreshInterval: refreshInterval, loop: loop, observer: observer, watch: watch)
    let router = LoopBound(sending: engine, on: loop)
    self.router = router
    loop.execute {
      router.value.bound = router
      router.value.start()
    }
  }

  /// Connects and returns once the slot map is known.
  /// - Throws: ``RedisError`` when no seed could be reached (the client is then closed).
  public static func connect(
    seeds: [RedisConfiguration], on loop: EventLoop, refreshInterval: Duration = .seconds(5),
    stateHandler: (@Sendable (RedisConnectionState) -> Void)? = nil
  ) async throws(RedisError) -> RedisClusterClient {
    let client = RedisClusterClient(
      seeds: seeds, on: loop, refreshInterval: refreshInterval, stateHandler: stateHandler)
    if case .failure(let error) = await client.observer.firstOutcome() {
      client.close()
      throw error
    }
    return client
  }

  deinit {
    let router = router
    loop.execute { router.value.close() }
  }

  /// The cluster's state now.
  public var state: RedisConnectionState { observer.state }

  /// The last error of a node connection that made the cluster back off.
  public var lastError: RedisError? { observer.lastError }

  /// The slot map now (empty before the first answer).
  public var map: RedisClusterMap { watch.map ?? RedisClusterMap() }

  /// Closes every node's connection; commands waiting fail with ``RedisError/Kind/closed``.
  public func close() { run { $0.close() } }

  // MARK: On the loop

  /// Sends `command` to its key's master; `completion` runs on the loop. Call on ``loop``.
  public func send(
    _ command: RESPCommand, timeout: Duration? = nil,
    _ completion: @escaping (Result<RESPValue, RedisError>) -> Void
  ) {
    router.value.send(command, timeout: timeout, completion)
  }

  /// Runs `script` on the master of `keys[0]` (see ``RedisClient/eval(_:keys:arguments:timeout:_:)``).
  /// Call on ``loop``.
  public func eval(
    _ script: RedisScript, keys: [[UInt8]], arguments: [[UInt8]], timeout: Duration? = nil,
    _ completion: @escaping (Result<RESPValue, RedisError>) -> Void
  ) {
    router.value.eval(script, keys: keys, arguments: arguments, timeout: timeout, completion)
  }

  // MARK: From a task

  /// Sends `command` and waits for its reply.
  /// - Throws: ``RedisError``: the server's error reply (after redirects), a timeout, a
  ///   lost connection.
  public func send(_ command: RESPCommand, timeout: Duration? = nil) async throws(RedisError) -> RESPValue {
    try await call { router, done in router.send(command, timeout: timeout, done) }.get()
  }

  /// Runs `script` and waits for its result.
  public func eval(
    _ script: RedisScript, keys: [String] = [], arguments: [String] = [], timeout: Duration? = nil
  ) async throws(RedisError) -> RESPValue {
    let keyBytes = keys.map { Array($0.utf8) }
    let argumentBytes = arguments.map { Array($0.utf8) }
    return try await call { router, done in
      router.eval(script, keys: keyBytes, arguments: argumentBytes, timeout: timeout, done)
    }.get()
  }

  /// Sends `command` to every master and waits for all answers (in no particular order of
  /// masters).
  public func broadcast(_ command: RESPCommand, timeout: Duration? = nil) async -> [Result<
    RESPValue, RedisError
  >] {
    await call { router, done in router.broadcast(command, timeout: timeout, done) }
  }

  /// Reads the slot map again now and returns once it has (or the read failed).
  public func refresh() async -> RedisClusterMap {
    await call { router, done in router.refresh { done(()) } }
    return map
  }

  /// What the client had to do: redirects, retries, map reads.
  public func statistics() async -> RedisClusterStatistics {
    await call { router, done in done(router.statistics) }
  }

  private func run(_ body: @escaping @Sendable (RedisClusterRouter) -> Void) {
    let router = router
    if loop.inEventLoop { body(router.value) } else { loop.execute { body(router.value) } }
  }

  private func call<T: Sendable>(
    _ body: @escaping @Sendable (RedisClusterRouter, @escaping (T) -> Void) -> Void
  ) async -> T {
    await withCheckedContinuation { continuation in
      run { router in body(router) { continuation.resume(returning: $0) } }
    }
  }
}
