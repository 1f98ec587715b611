import Dispatch
import SwitchboardChat
import SwitchboardIO
import SwitchboardRedis
import SwitchboardTestSupport
import Synchronization
import Testing

@testable import SwitchboardServer

/// Every node's sample under `--redis` (ServerCore+Nodes.swift): three servers on one real
/// `redis-server` (and on a Redis Cluster) each store theirs once a second; any of them reads all three, and a
/// stopped node drops out of the list once its sample is 5 s old.
@Suite(.onTestThreads, .enabled(ifAvailable: RedisServer.isInstalled, "redis-server is not installed"))
struct NodeSamplesTests {
  /// A server whose broker is a Redis broker on `url`, node id `node`.
  private func node(_ node: String, _ url: RedisURL) throws -> ChatServer {
    var configuration = ServerConfiguration.loopbackForTesting()
    configuration.loopCount = 1
    configuration.api.nodeID = node
    configuration.broker = { _ in
      try RedisRoomBroker.connect(configuration: RedisBrokerConfiguration(redis: .test(url), nodeID: node))
    }
    let server = try ChatServer(configuration: configuration)
    try server.start()
    return server
  }

  /// What `server` lists now (waits for the broker's answer).
  private func samples(from server: ChatServer) -> [ServerSample] {
    let result = Mutex<[ServerSample]>([])
    let done = DispatchSemaphore(value: 0)
    server.core.nodeSamples(on: QueueExecutor(queue: DispatchQueue(label: "test.nodes"))) { samples in
      result.withLock { $0 = samples }
      done.signal()
    }
    _ = done.wait(timeout: .now() + 5)
    return result.withLock { $0 }
  }

  @Test func everyNodeReadsTheLiveNodesAndAStoppedOneDropsOut() async throws {
    let redis = try RedisServer()
    defer { withExtendedLifetime(redis) {} }
    try await threeNodes(urls: Array(repeating: redis.url(), count: 3))
  }

  /// The same on a Redis Cluster, each node seeded with another master: `sb:nodes` is one
  /// key, in one slot, whichever master a node first talks to.
  @Test(.enabled(if: RedisCluster.isInstalled, "redis-cli is not installed"))
  func onARedisClusterToo() async throws {
    let cluster = try RedisCluster()
    defer { withExtendedLifetime(cluster) {} }
    try await threeNodes(urls: (0..<3).map { cluster.url($0) })
  }

  private func threeNodes(urls: [RedisURL]) async throws {
    let servers = try zip(["node-a", "node-b", "node-c"], urls).map { try node($0, $1) }
    defer { for server in servers { server.shutdown() } }
    // Its own first, then the others by id.
    try await eventually("node-a lists three nodes") {
      samples(from: servers[0]).map(\.node) == ["node-a", "node-b", "node-c"]
    }
    try await eventually("node-c lists three nodes") {
      samples(from: servers[2]).map(\.node) == ["node-c", "node-a", "node-b"]
    }
    // A sample read from Redis carries the other node's figures.
    let line = try RawChatPeer(.tcp, port: servers[1].tcpAddress!.port, name: "liner")
    try await eventually("node-b's line connection seen from node-a") {
      samples(from: servers[0]).first { $0.node == "node-b" }?.connections["tcp"] == 1
    }
    withExtendedLifetime(line) {}
    servers[1].shutdown()
    try await eventually(timeout: .seconds(15), "node-b dropped out") {
      samples(from: servers[0]).map(\.node) == ["node-a", "node-c"]
    }
  }
}
