import Foundation
import SwitchboardTestSupport
import Testing

/// Webhooks on three `serve --redis` nodes behind one `redis-server`, all posting to one
/// receiver (Tests/peers/backend.py, aiohttp, verifying every signature): each member's
/// `member.joined` and `member.left` arrive once for the cluster, from the node the member
/// is on, and `room.occupied` / `room.vacated` once, when the first member anywhere came
/// and the last anywhere went — over TCP lines and UDP datagrams.
@Suite(
  .serialized,
  .enabled(
    ifAvailable: Executables.switchboard != nil && RedisServer.isInstalled && BackendPeer.isAvailable,
    "needs the switchboard binary, redis-server and python3 with aiohttp"),
  .onTestThreads)
struct WebhookScaleOutTests {
  static let secret = "webhook-test-secret-of-thirty-two-bytes-or-more"

  /// `event TYPE ROOM MEMBER` (the node left out).
  private func withoutNode(_ line: String) -> String {
    line.split(separator: " ").prefix(4).joined(separator: " ")
  }

  private func queueDepth(_ node: ScaleOutNode) throws -> Int? {
    let text = try ScaleOutNode.get("/metrics", port: node.httpPort)
    let line = text.split(separator: "\n").first { $0.hasPrefix("switchboard_webhook_queue_depth{target=\"0\"}") }
    return line.flatMap { $0.split(separator: " ").last }.flatMap { Int($0) }
  }

  /// Three nodes behind `redis`, each posting its events to `backend`, ready.
  private func threeNodes(_ redis: ScaleOutRedis, _ backend: BackendPeer) async throws -> [ScaleOutNode] {
    var nodes: [ScaleOutNode] = []
    for _ in 0..<3 {
      nodes.append(
        try await ScaleOutNode(
          redisPorts: redis.ports, room: "hooks", logLevel: "info",
          arguments: ["--webhook", backend.url("/hooks"), "--webhook-secret", Self.secret]))
    }
    for node in nodes { _ = try node.waitForReadiness(200) }
    return nodes
  }

  @Test func eachEventOnceForTheCluster() async throws {
    let redis = try ScaleOutRedis(.single)
    let backend = try await BackendPeer(secret: Self.secret)
    let nodes = try await threeNodes(redis, backend)

    func expectEvents(_ expected: [String]) async throws {
      do {
        try await eventually("\(expected)") { backend.events.map(withoutNode).suffix(expected.count) == expected[...] }
      } catch {
        throw TestFailure(
          "\(error); the receiver got \(backend.lines); nodes: \(nodes.map { $0.process.stderr.suffix(1500) })")
      }
    }
    let ada = try RawChatPeer(.tcp, port: nodes[0].tcpPort, name: "ada")
    try await expectEvents(["event room.occupied hooks -", "event member.joined hooks ada"])
    let bob = try RawChatPeer(.udp, port: nodes[1].udpPort, name: "bob")
    try await expectEvents(["event member.joined hooks bob"])
    let cat = try RawChatPeer(.tcp, port: nodes[2].tcpPort, name: "cat")
    try await expectEvents(["event member.joined hooks cat"])
    ada.send("/quit")
    try await expectEvents(["event member.left hooks ada"])
    bob.send("/quit")
    try await expectEvents(["event member.left hooks bob"])
    cat.send("/quit")
    try await expectEvents(["event member.left hooks cat", "event room.vacated hooks -"])

    // Every node's queue is empty: nothing more is coming.
    for node in nodes { try await eventually("node's queue drained") { try queueDepth(node) == 0 } }
    let events = backend.events
    #expect(
      events.map(withoutNode) == [
        "event room.occupied hooks -", "event member.joined hooks ada", "event member.joined hooks bob",
        "event member.joined hooks cat", "event member.left hooks ada", "event member.left hooks bob",
        "event member.left hooks cat", "event room.vacated hooks -",
      ])
    // Each member's events came from the node it was on: three different nodes.
    let joinNodes = events.filter { $0.hasPrefix("event member.joined") }.map { $0.split(separator: " ").last ?? "" }
    #expect(Set(joinNodes).count == 3, "\(events)")
    #expect(!backend.lines.contains { $0.hasPrefix("badsig") })
  }

  @Test func aDeadNodesMemberLeavesOnceFromTheNodeThatExpiredIt() async throws {
    let redis = try ScaleOutRedis(.single)
    let backend = try await BackendPeer(secret: Self.secret)
    let nodes = try await threeNodes(redis, backend)
    let ada = try RawChatPeer(.tcp, port: nodes[0].tcpPort, name: "ada")
    try await eventually("ada's join") { backend.events.contains { $0.hasPrefix("event member.joined hooks ada") } }
    let bob = try RawChatPeer(.tcp, port: nodes[1].tcpPort, name: "bob")
    let cat = try RawChatPeer(.tcp, port: nodes[2].tcpPort, name: "cat")
    try await eventually("bob's and cat's joins") {
      backend.events.filter { $0.hasPrefix("event member.joined hooks") }.count == 3
    }
    let survivors = Set(backend.events.filter { $0.contains(" bob ") || $0.contains(" cat ") }.compactMap {
      $0.split(separator: " ").last.map(String.init)
    })
    // SIGKILL: no goodbye, its presence entries stay until they expire (15 s) and a
    // survivor's refresh (every 5 s) removes them.
    nodes[0].kill()
    try await eventually(timeout: .seconds(45), "ada's leave") {
      backend.events.contains { $0.hasPrefix("event member.left hooks ada") }
    }
    for node in nodes.dropFirst() { try await eventually("node's queue drained") { try queueDepth(node) == 0 } }
    let leaves = backend.events.filter { $0.hasPrefix("event member.left hooks ada") }
    #expect(leaves.count == 1, "\(backend.events)")
    #expect(leaves.first.flatMap { $0.split(separator: " ").last.map(String.init) }.map(survivors.contains) == true)
    #expect(!backend.events.contains { $0.hasPrefix("event room.vacated") })
    _ = (ada, bob, cat)
  }
}
