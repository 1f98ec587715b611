import SwitchboardRedis
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The Redis behind the process-level scale-out tests: one `redis-server`, or a real
/// three-master Redis Cluster — the same scenarios run against both. `throughProxies` puts
/// every node's connections through ``StallingProxy``s (one in front of the server, or one
/// per cluster node, announced by the cluster itself), so that a test can cut one node off
/// (``partition(clientName:)``) while the others go on.
final class ScaleOutRedis: Sendable {
  /// Which Redis a test runs against.
  enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case single
    case cluster
    var testDescription: String { rawValue }
  }

  let kind: Kind
  private let server: RedisServer?
  private let cluster: RedisCluster?
  /// In front of the server or the cluster's nodes (empty without `throughProxies`).
  private let proxies: [StallingProxy]

  /// Starts it. A cluster gets a `cluster-node-timeout` of 15 s, so that a master paused
  /// by a test stays a master (a pause past the nodes' timeouts, not a failover).
  init(_ kind: Kind, throughProxies: Bool = false) throws {
    self.kind = kind
    switch kind {
    case .single:
      let server = try RedisServer()
      self.server = server
      cluster = nil
      proxies = throughProxies ? [try StallingProxy(upstreamPort: server.port)] : []
    case .cluster:
      server = nil
      let cluster = try RedisCluster(nodeTimeout: 15_000, throughProxies: throughProxies)
      self.cluster = cluster
      proxies = cluster.proxies
    }
  }

  deinit {
    if server != nil { for proxy in proxies { proxy.close() } }
  }

  /// The ports `serve` gets as `--redis` URLs: the server's (its proxy's), or every master's
  /// as the cluster announces them (seeds).
  /// `redis-cli arguments…` against the one server (`nil` on a cluster).
  @discardableResult
  func cli(_ arguments: String...) throws -> String? {
    guard let server else { return nil }
    return try runTool(["redis-cli", "-h", "127.0.0.1", "-p", String(server.port)] + arguments)
  }

  var ports: [Int] {
    if let server { return proxies.isEmpty ? [server.port] : [proxies[0].port] }
    return cluster!.announcedPorts
  }

  /// Stalls both directions of every connection whose client is named `name` (`HELLO …
  /// SETNAME`: a broker names its connections `switchboard-<node>`), its reconnects too, on
  /// every proxy: that node is cut off from Redis, the others are not. Needs `throughProxies`.
  func partition(clientName name: String) {
    precondition(!proxies.isEmpty, "partition needs throughProxies")
    for proxy in proxies { proxy.stall(whereClientSent: name, includingLater: true) }
  }

  /// Stalls what Redis sends down the pub/sub connections that carry `room` (Redis → node
  /// only; commands still flow): the server's `SUBSCRIBE` connections, or on a cluster the
  /// `SSUBSCRIBE` connections to the room's master. Every node's. Needs `throughProxies`.
  func stallDeliveries(ofRoom room: String) throws {
    precondition(!proxies.isEmpty, "stallDeliveries needs throughProxies")
    guard let cluster else { return proxies[0].stall(.toClient, whereClientSent: "SUBSCRIBE") }
    let slot = RedisKeySlot.slot(of: RedisRoomKeys(room: room).meta)
    guard let index = try cluster.owner(ofSlot: slot) else { throw TestFailure("no master serves \(room)") }
    proxies[index].stall(.toClient, whereClientSent: "SSUBSCRIBE")
  }

  /// Ends ``partition(clientName:)``: everything held back flows again.
  func heal() {
    for proxy in proxies { proxy.resume() }
  }

  /// Pauses (SIGSTOP) the server, or the master serving `room`; returns what resumes it
  /// (SIGCONT to the same process — asking the cluster again could ask the paused one).
  func pause(masterOf room: String) throws -> @Sendable () -> Void {
    if let server {
      server.signal(SIGSTOP)
      return { server.signal(SIGCONT) }
    }
    let cluster = cluster!
    let slot = RedisKeySlot.slot(of: RedisRoomKeys(room: room).meta)
    guard let index = try cluster.owner(ofSlot: slot) else { throw TestFailure("no master serves \(room)") }
    cluster.signal(SIGSTOP, master: index)
    return { cluster.signal(SIGCONT, master: index) }
  }
}
