import Foundation
import SwitchboardRedis
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A real three-master Redis Cluster for one test, on loopback: three `redis-server
/// --cluster-enabled yes` on ``ReservedPort``s (client and bus ports both reserved, so none
/// lands past 65,535 and nothing else binds them; each node starts once) with their `nodes-P.conf` in a temporary directory, joined by
/// `redis-cli --cluster create … --cluster-replicas 0`, ready once every node says
/// `cluster_state:ok`. Stopped (SIGKILL by PID) and its directory removed on deinit.
/// `RedisCluster(replicas: 1)` adds a replica per master (`--cluster-replicas 1`, ready
/// once each replica's link to its master is up), for failover tests.
///
/// `RedisCluster(throughProxies: true)` puts a ``StallingProxy`` in front of every node and
/// starts the node with `--cluster-announce-ip 127.0.0.1 --cluster-announce-port <its proxy's
/// port>` (and its real bus port as `--cluster-announce-bus-port`): `CLUSTER SLOTS` and
/// `MOVED` then name the proxies, so every client connection — the seeds' and each master's —
/// runs through a proxy the test holds, while the cluster bus stays direct. The admin helpers
/// (``cli(_:_:)``, ``migrate(slot:from:to:)``) still use the real ports.
final class RedisCluster: Sendable {
  /// Whether `redis-server` and `redis-cli` are installed.
  static let isInstalled = RedisServer.isInstalled && commandSucceeds(["redis-cli", "--version"])

  /// The masters' client ports, in `--cluster create` order (the first serves slots
  /// 0–5460, the second 5461–10922, the third 10923–16383).
  let ports: [Int]
  /// The replicas' client ports (empty without replicas).
  let replicaPorts: [Int]
  /// The proxies in front of the nodes, masters first (empty unless `throughProxies`).
  let proxies: [StallingProxy]
  /// The masters' ports as the cluster announces them: the proxies', or ``ports``.
  let announcedPorts: [Int]
  let directory: URL
  /// Keeps every client and bus port the cluster's until it is gone.
  private let reservations: [ReservedPort]
  /// Masters first, then replicas, as ``ports`` and ``replicaPorts``.
  private let processes: Locked<[ChildProcess]>

  /// Starts `3 × (1 + replicas)` nodes with `cluster-node-timeout` `nodeTimeout` ms (how
  /// long a master may be unreachable before its replica takes over); with `throughProxies`,
  /// clients reach each node through its proxy (``proxies``).
  init(replicas: Int = 0, nodeTimeout: Int = 5000, throughProxies: Bool = false) throws {
    let count = 3 * (1 + replicas)
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "switchboard-cluster-\(getpid())-\(UInt64.random(in: 0 ... .max))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    do {
      reservations = try ReservedPort.reserve(2 * count)
      let clientPorts = reservations[0..<count].map(\.port)
      let fronts = throughProxies ? try clientPorts.map { try StallingProxy(upstreamPort: $0) } : []
      do {
        let children = try Self.start(
          clientPorts: clientPorts, busPorts: reservations[count..<(2 * count)].map(\.port),
          announcedPorts: fronts.isEmpty ? nil : fronts.map(\.port), nodeTimeout: nodeTimeout, in: directory)
        do {
          try Self.create(ports: clientPorts, replicas: replicas)
        } catch {
          children.forEach { $0.stop() }
          throw error
        }
        ports = Array(clientPorts[0..<3])
        replicaPorts = Array(clientPorts[3..<count])
        proxies = fronts
        announcedPorts = fronts.isEmpty ? ports : fronts[0..<3].map(\.port)
        processes = Locked(children)
      } catch {
        for proxy in fronts { proxy.close() }
        throw error
      }
    } catch {
      try? FileManager.default.removeItem(at: directory)
      throw error
    }
  }

  deinit {
    processes.withLock { $0.forEach { $0.stop() } }
    for proxy in proxies { proxy.close() }
    try? FileManager.default.removeItem(at: directory)
  }

  /// Kills master `index` (SIGKILL by its PID), as a crashed machine would.
  func kill(master index: Int) {
    processes.withLock { $0[index].stop() }
  }

  /// Sends `sig` (SIGSTOP, SIGCONT) to master `index`.
  func signal(_ sig: Int32, master index: Int) {
    processes.withLock { $0[index].signal(sig) }
  }

  /// The port of the node that serves `slot`, as the node on `port` sees it.
  func masterPort(ofSlot slot: Int, askingPort port: Int) throws -> Int? {
    let nodes = try runTool(["redis-cli", "-h", "127.0.0.1", "-p", String(port), "CLUSTER", "NODES"])
    return Self.ownerPort(ofSlot: slot, nodes: nodes)
  }

  /// A URL of master `index`, as clients reach it (through its proxy with `throughProxies`).
  func url(_ index: Int = 0) -> RedisURL { RedisURL(host: "127.0.0.1", port: announcedPorts[index]) }

  /// `redis-cli -p <port of index> arguments…`'s output.
  @discardableResult
  func cli(_ index: Int, _ arguments: String...) throws -> String {
    try runTool(["redis-cli", "-h", "127.0.0.1", "-p", String(ports[index])] + arguments)
  }

  /// The node id of master `index`.
  func nodeID(_ index: Int) throws -> String {
    try cli(index, "CLUSTER", "MYID").trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Which master (index) serves `slot`, as master `asking` sees it.
  func owner(ofSlot slot: Int, asking: Int = 0) throws -> Int? {
    Self.owner(ofSlot: slot, nodes: try cli(asking, "CLUSTER", "NODES"), ports: announcedPorts)
  }

  /// Which of `ports` serves `slot` in a `CLUSTER NODES` answer.
  private static func owner(ofSlot slot: Int, nodes: String, ports: [Int]) -> Int? {
    ownerPort(ofSlot: slot, nodes: nodes).flatMap { ports.firstIndex(of: $0) }
  }

  /// The port of the master (not marked failed) that serves `slot` in a `CLUSTER NODES` answer.
  private static func ownerPort(ofSlot slot: Int, nodes: String) -> Int? {
    for line in nodes.split(separator: "\n") {
      let fields = line.split(separator: " ")
      guard fields.count >= 8, fields[2].contains("master"), !fields[2].contains("fail") else { continue }
      let port = Int(fields[1].split(separator: "@")[0].split(separator: ":").last ?? "")
      for range in fields.dropFirst(8) where !range.hasPrefix("[") {
        let bounds = range.split(separator: "-").compactMap { Int($0) }
        guard let low = bounds.first, let high = bounds.last else { continue }
        if (low...high).contains(slot), let port { return port }
      }
    }
    return nil
  }

  /// A room name (`prefix-N`) whose keys land on master `index`'s slots now.
  func room(on index: Int, prefix: String) throws -> String {
    let nodes = try cli(0, "CLUSTER", "NODES")
    for n in 0..<10_000 {
      let name = "\(prefix)-\(n)"
      if Self.owner(
        ofSlot: RedisKeySlot.slot(of: RedisRoomKeys(room: name).meta), nodes: nodes, ports: announcedPorts)
        == index
      {
        return name
      }
    }
    throw TestFailure("no room name lands on master \(index)")
  }

  /// Moves `slot` with its keys from master `from` to master `to`, the way `redis-cli
  /// --cluster reshard` does: `SETSLOT IMPORTING` on the target, `MIGRATING` on the
  /// source, `MIGRATE … KEYS` in batches, then `SETSLOT NODE` everywhere. While it runs,
  /// clients get `ASK` (or `TRYAGAIN`) for keys already moved, and `MOVED` afterwards.
  func migrate(slot: Int, from: Int, to: Int) throws {
    let source = try nodeID(from)
    let target = try nodeID(to)
    try cli(to, "CLUSTER", "SETSLOT", String(slot), "IMPORTING", source)
    try cli(from, "CLUSTER", "SETSLOT", String(slot), "MIGRATING", target)
    for _ in 0..<1000 {
      let keys = try cli(from, "CLUSTER", "GETKEYSINSLOT", String(slot), "200")
        .split(separator: "\n").map(String.init).filter { !$0.isEmpty }
      if keys.isEmpty { break }
      try runTool(
        [
          "redis-cli", "-h", "127.0.0.1", "-p", String(ports[from]), "MIGRATE", "127.0.0.1",
          String(ports[to]), "", "0",
          "5000", "KEYS",
        ] + keys)
    }
    for index in [to, from] + ports.indices.filter({ $0 != to && $0 != from }) {
      try cli(index, "CLUSTER", "SETSLOT", String(slot), "NODE", target)
    }
  }

  private static func start(
    clientPorts: [Int], busPorts: [Int], announcedPorts: [Int]?, nodeTimeout: Int, in directory: URL
  ) throws -> [ChildProcess] {
    var children: [ChildProcess] = []
    do {
      for (index, (port, bus)) in zip(clientPorts, busPorts).enumerated() {
        let announce =
          announcedPorts.map {
            [
              "--cluster-announce-ip", "127.0.0.1", "--cluster-announce-port", String($0[index]),
              "--cluster-announce-bus-port", String(bus),
            ]
          } ?? []
        var arguments = [
          "--port", String(port), "--cluster-port", String(bus), "--bind", "127.0.0.1", "--cluster-enabled",
          "yes",
          "--cluster-config-file", directory.appendingPathComponent("nodes-\(port).conf").path,
          "--cluster-node-timeout", String(nodeTimeout), "--appendonly", "no", "--save", "", "--daemonize", "no",
          "--dir", directory.path,
        ]
        arguments += announce
        children.append(try ChildProcess(command: ["redis-server"] + arguments))
      }
      for (child, port) in zip(children, clientPorts) {
        let ready = eventually(timeout: .seconds(15)) {
          child.stdout.contains("Ready to accept connections") || !child.isRunning
        }
        guard ready, child.isRunning else {
          throw TestFailure("cluster node on port \(port) did not start: \(child.stdout.suffix(1500))")
        }
      }
      return children
    } catch {
      children.forEach { $0.stop() }
      throw error
    }
  }

  private static func create(ports: [Int], replicas: Int) throws {
    func cli(_ index: Int, _ arguments: String...) throws -> String {
      try runTool(["redis-cli", "-h", "127.0.0.1", "-p", String(ports[index])] + arguments)
    }
    try runTool(
      ["redis-cli", "--cluster", "create"] + ports.map { "127.0.0.1:\($0)" } + [
        "--cluster-replicas", String(replicas), "--cluster-yes",
      ], timeout: .seconds(60))
    // Every node must say ok, and know every slot's master, before a test routes by it.
    let ok = try eventually(timeout: .seconds(30)) {
      try ports.indices.allSatisfy { index in
        let info = try cli(index, "CLUSTER", "INFO")
        return info.contains("cluster_state:ok") && info.contains("cluster_slots_assigned:16384")
          && info.contains("cluster_known_nodes:\(ports.count)")
      }
    }
    guard ok else { throw TestFailure("the cluster did not reach cluster_state:ok") }
    // Each replica copies its master before a test relies on it taking over.
    let synced = try eventually(timeout: .seconds(30)) {
      try ports.indices.dropFirst(3).allSatisfy { index in
        try cli(index, "INFO", "replication").contains("master_link_status:up")
      }
    }
    guard synced else { throw TestFailure("the replicas did not sync with their masters") }
  }
}
