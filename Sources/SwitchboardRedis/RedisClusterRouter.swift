import SwitchboardIO
import SwitchboardRESP

/// The loop side of a ``RedisClusterClient``: one ``RedisClient`` per node, the slot map,
/// and the routing rules (first key → slot → master; `MOVED`, `ASK`, `TRYAGAIN`,
/// `CLUSTERDOWN`). Lives on one loop; every method runs there.
final class RedisClusterRouter {
  typealias Completion = (Result<RESPValue, RedisError>) -> Void
  /// Sends one command (or script) on a node's client within the time left.
  typealias Operation = (RedisClient, Duration, @escaping Completion) -> Void

  /// Where the router is in its life.
  enum Phase: Equatable {
    /// No slot map yet: reading `CLUSTER SLOTS` from a seed.
    case discovering
    /// Routing by the map.
    case routing
    /// Closed for good.
    case closed
  }

  /// One command on its way, across retries.
  private struct Job {
    var slot: Int?
    var deadline: ContinuousClock.Instant
    var redirects = 0
    var tries = 0
    var asking: RedisClusterMap.Node?
    var operation: Operation
    var completion: Completion
  }

  /// How many `MOVED`/`ASK` one command follows before giving up (a map changing faster
  /// than that is a cluster in trouble).
  static let maxRedirects = 5

  let loop: EventLoop
  let seeds: [RedisConfiguration]
  let refreshInterval: Duration
  let observer: RedisObserver
  let watch: RedisClusterWatch
  /// Set once, right after init: the router as its node clients' handlers reach it.
  var bound: LoopBound<RedisClusterRouter>?
  private(set) var phase = Phase.discovering
  private(set) var map = RedisClusterMap()
  private var clients: [RedisClusterMap.Node: RedisClient] = [:]
  private var nodeStates: [RedisClusterMap.Node: RedisConnectionState] = [:]
  private var failedSeeds: Set<RedisClusterMap.Node> = []
  private var refreshRunning = false
  /// Called when the map read under way ends (read or not).
  private var refreshWaiters: [() -> Void] = []
  private var lastRefresh = ContinuousClock.now - .seconds(60)
  private var timer: Scheduled?
  var statistics = RedisClusterStatistics()

  init(
    seeds: [RedisConfiguration], refreshInterval: Duration, loop: EventLoop, observer: RedisObserver,
    watch: RedisClusterWatch
  ) {
    self.seeds = seeds
    self.refreshInterval = refreshInterval
    self.loop = loop
    self.observer = observer
    self.watch = watch
  }

  /// Connects to every seed; the first that is ready tells the slot map.
  func start() {
    observer.update(.connecting(attempt: 1), error: nil)
    for seed in seeds { _ = client(for: Self.node(seed.url)) }
    timer = loop.scheduleRepeatingLocal(every: refreshInterval) { [weak self] in self?.refresh() }
  }

  func close() {
    guard phase != .closed else { return }
    phase = .closed
    timer?.cancel()
    for client in clients.values { client.close() }
    clients = [:]
    bound = nil
    watch.close()
    observer.update(.closed, error: nil)
  }

  // MARK: Routing

  /// Sends `command` to the master of its first key's slot (any master when it has no key).
  func send(_ command: RESPCommand, timeout: Duration?, _ completion: @escaping Completion) {
    let slot = Self.routingKey(command).map { RedisKeySlot.slot(of: $0) }
    dispatch(
      Job(
        slot: slot, deadline: deadline(timeout),
        operation: { client, left, done in client.send(command, timeout: left, done) }, completion: completion
      ))
  }

  /// Runs `script` on the master of `keys[0]`'s slot; `NOSCRIPT` is each node's own affair
  /// (its connection loads the script).
  func eval(
    _ script: RedisScript, keys: [[UInt8]], arguments: [[UInt8]], timeout: Duration?,
    _ completion: @escaping Completion
  ) {
    dispatch(
      Job(
        slot: keys.first.map { RedisKeySlot.slot(of: $0) }, deadline: deadline(timeout),
        operation: { client, left, done in
          client.eval(script, keys: keys, arguments: arguments, timeout: left, done)
        }, completion: completion))
  }

  /// Sends `command` to every master (e.g. `SCRIPT FLUSH`); the answers come in map order.
  func broadcast(
    _ command: RESPCommand, timeout: Duration?,
    _ completion: @escaping ([Result<RESPValue, RedisError>]) -> Void
  ) {
    let masters = self.masters
    guard !masters.isEmpty else { return completion([]) }
    var results = [Result<RESPValue, RedisError>?](repeating: nil, count: masters.count)
    var remaining = masters.count
    for (index, node) in masters.enumerated() {
      client(for: node).send(command, timeout: timeout) { result in
        results[index] = result
        remaining -= 1
        if remaining == 0 { completion(results.map { $0! }) }
      }
    }
  }

  /// The masters serving at least one slot.
  var masters: [RedisClusterMap.Node] {
    var seen = Set<RedisClusterMap.Node>()
    var out: [RedisClusterMap.Node] = []
    for slot in stride(from: 0, to: RedisKeySlot.count, by: 1) {
      if let node = map.node(forSlot: slot), seen.insert(node).inserted { out.append(node) }
    }
    return out
  }

  private func deadline(_ timeout: Duration?) -> ContinuousClock.Instant {
    ContinuousClock.now + (timeout ?? seeds[0].commandTimeout)
  }

  private func dispatch(_ job: Job) {
    guard phase != .closed else { return job.completion(.failure(.closed())) }
    let left = job.deadline - ContinuousClock.now
    guard left > .zero else {
      return job.completion(.failure(.timeout("no answer from the cluster in time")))
    }
    let target =
      job.asking ?? (phase == .routing ? job.slot.flatMap { map.node(forSlot: $0) } ?? anyMaster : nil)
    guard let target else {
      // No map yet, or nobody serves the slot: wait a little and look again.
      if phase == .routing { scheduleRefresh() }
      return retry(job)
    }
    let client = client(for: target)
    if job.asking != nil { client.send(RESPCommand("ASKING"), timeout: left) { _ in } }
    job.operation(client, left) { [weak self] result in self?.answered(result, job: job, from: target) }
  }

  private var anyMaster: RedisClusterMap.Node? { masters.first }

  private func answered(_ result: Result<RESPValue, RedisError>, job: Job, from node: RedisClusterMap.Node) {
    guard case .failure(let error) = result else { return job.completion(result) }
    var next = job
    next.asking = nil
    if let redirect = RedisClusterMap.redirect(error, from: node) {
      guard job.redirects < Self.maxRedirects else { return job.completion(result) }
      next.redirects += 1
      switch redirect {
      case .moved(let slot, let owner):
        statistics.moved += 1
        map.assign(slot, to: owner)
        _ = client(for: owner)
        watch.update(map)
        scheduleRefresh()
      case .ask(_, let owner):
        statistics.asked += 1
        next.asking = owner
      }
      return dispatch(next)
    }
    switch error.prefix {
    case "TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN", "LOADING":
      statistics.retried += 1
      if error.prefix != "TRYAGAIN" { scheduleRefresh() }
      retry(next)
    default:
      if error.kind == .connectionLost || error.kind == .timeout { scheduleRefresh() }
      job.completion(result)
    }
  }

  /// Runs `job` again after a back-off (10 ms doubling to 250 ms), or fails it when its
  /// deadline would pass first.
  private func retry(_ job: Job) {
    var next = job
    next.tries += 1
    let delay = Duration.milliseconds(min(250, 10 << min(next.tries, 5)))
    guard ContinuousClock.now + delay < job.deadline else {
      return job.completion(
        .failure(
          phase == .discovering
            ? .timeout("no slot map from the cluster in time")
            : .server("CLUSTERDOWN no master answered in time")))
    }
    _ = loop.scheduleLocal(after: delay) { [weak self] in
      guard let self else { return job.completion(.failure(.closed())) }
      self.dispatch(next)
    }
  }

  // MARK: The map

  /// Reads the map soon (at most every 100 ms).
  func scheduleRefresh() {
    guard phase != .closed, !refreshRunning else { return }
    let since = ContinuousClock.now - lastRefresh
    if since >= .milliseconds(100) { return refresh() }
    refreshRunning = true
    _ = loop.scheduleLocal(after: .milliseconds(100) - since) { [weak self] in
      self?.refreshRunning = false
      self?.refresh()
    }
  }

  /// Asks a known node for `CLUSTER SLOTS` (masters first, then seeds), one after the other
  /// until one answers.
  func refresh(then done: (() -> Void)? = nil) {
    if let done { refreshWaiters.append(done) }
    guard phase != .closed, !refreshRunning else { return }
    refreshRunning = true
    lastRefresh = ContinuousClock.now
    statistics.refreshes += 1
    var candidates = masters.filter { nodeStates[$0]?.isReady == true }
    for seed in seeds.map({ Self.node($0.url) })
    where !candidates.contains(seed) && nodeStates[seed]?.isReady == true {
      candidates.append(seed)
    }
    ask(candidates[...])
  }

  private func ask(_ candidates: ArraySlice<RedisClusterMap.Node>) {
    guard let node = candidates.first else { return refreshEnded() }
    client(for: node).send(RESPCommand("CLUSTER", "SLOTS"), timeout: seeds[0].connectTimeout) {
      [weak self] result in
      guard let self, self.phase != .closed else { return }
      switch result.flatMap({ reply in
        Result { () throws(RedisError) in try RedisClusterMap(slots: reply, answeredBy: node) }
      }) {
      case .success(let fresh) where fresh.coveredSlots > 0:
        self.adopt(fresh)
        self.refreshEnded()
      case .success, .failure:
        self.ask(candidates.dropFirst())
      }
    }
  }

  private func refreshEnded() {
    refreshRunning = false
    let waiters = refreshWaiters
    refreshWaiters = []
    for waiter in waiters { waiter() }
  }

  private func adopt(_ fresh: RedisClusterMap) {
    let changed = fresh != map || phase == .discovering
    map = fresh
    for node in masters { _ = client(for: node) }
    guard changed else { return }
    let first = phase == .discovering
    phase = .routing
    watch.update(fresh)
    if first { observer.update(.ready(protocolVersion: 3), error: nil) }
  }

  // MARK: Nodes

  private func client(for node: RedisClusterMap.Node) -> RedisClient {
    if let known = clients[node] { return known }
    var configuration = seeds[0]
    configuration.url.host = node.host
    configuration.url.port = node.port
    if let seed = seeds.first(where: { Self.node($0.url) == node }) { configuration = seed }
    let bound = self.bound
    let client = RedisClient(configuration: configuration, on: loop) { state in
      bound?.value.nodeChanged(node, state)
    }
    clients[node] = client
    return client
  }

  /// A node's connection changed (on the loop).
  private func nodeChanged(_ node: RedisClusterMap.Node, _ state: RedisConnectionState) {
    guard phase != .closed else { return }
    nodeStates[node] = state
    switch (phase, state) {
    case (.discovering, .ready):
      refresh()
    case (.discovering, .backingOff):
      failedSeeds.insert(node)
      let seedNodes = Set(seeds.map { Self.node($0.url) })
      if seedNodes.isSubset(of: failedSeeds) {
        observer.update(state, error: clients[node]?.lastError)
      }
    case (.routing, .backingOff):
      if masters.contains(node) {
        observer.update(state, error: clients[node]?.lastError)
        scheduleRefresh()
      }
    case (.routing, .ready):
      if masters.allSatisfy({ nodeStates[$0]?.isReady == true }) { observer.update(state, error: nil) }
    default: break
    }
  }

  static func node(_ url: RedisURL) -> RedisClusterMap.Node {
    RedisClusterMap.Node(host: url.host, port: url.port)
  }

  /// The key a command is routed by: `KEYS[1]` of `EVAL`/`EVALSHA`/`FCALL`, nothing for
  /// commands without keys (`PING`, `INFO`, `CLUSTER` …, and `PUBLISH`, whose channel any
  /// node spreads cluster-wide), the first argument otherwise.
  static func routingKey(_ command: RESPCommand) -> [UInt8]? {
    let arguments = command.arguments
    guard arguments.count >= 2 else { return nil }
    let name = command.name
    switch name {
    case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO":
      guard arguments.count >= 4, let count = Int(String(decoding: arguments[2], as: UTF8.self)), count > 0
      else { return nil }
      return arguments[3]
    case "PING", "ECHO", "INFO", "CLUSTER", "SCRIPT", "FUNCTION", "CLIENT", "CONFIG", "COMMAND", "HELLO",
      "AUTH",
      "SELECT", "TIME", "DBSIZE", "FLUSHALL", "FLUSHDB", "WAIT", "PUBLISH", "ASKING", "READONLY", "READWRITE":
      return nil
    default:
      return arguments[1]
    }
  }
}
