import Foundation
import SwitchboardClient
import SwitchboardIO
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Scale-out through processes: a real `redis-server`, `switchboard serve --redis` nodes on
/// loopback ports the kernel chose, clients over WebSocket (the real `ChatClient`, which resumes by id
/// and epoch), TCP lines and UDP spread over them. Each test counts what was acknowledged
/// and what arrived. `--redis-timeout 0.5` makes outages show within a test: commands and
/// connects time out after 0.5 s, publishes after 1 s, the probe runs every 0.5 s. The
/// scenarios that mean the same on a Redis Cluster run against one server and against a
/// three-master cluster (``ScaleOutRedis``; the nodes get every master as a seed).
@Suite(
  .serialized, .enabled(ifAvailable: Executables.switchboard != nil && RedisServer.isInstalled, "needs the switchboard binary and redis-server"),
  .onTestThreads)
struct ScaleOutProcessTests {
  /// The clients' own event loop: without one they would share the client library's
  /// process-wide loop with every other test's clients, and these streams (nine clients,
  /// thousands of messages, on one server and on a cluster) lagged it past their deadlines.
  private static let clientLoops: EventLoopGroup? = try? EventLoopGroup(count: 1)

  private static var testConfiguration: ChatClient.Configuration {
    ChatClient.Configuration(
      connectTimeout: .seconds(5),
      reconnect: ReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(300)),
      heartbeat: .disabled, eventLoopGroup: clientLoops)
  }

  private func nodes(_ count: Int, redisPort: Int) async throws -> [ScaleOutNode] {
    try await nodes(count, redisPorts: [redisPort])
  }

  private func nodes(_ count: Int, redisPorts: [Int]) async throws -> [ScaleOutNode] {
    var nodes: [ScaleOutNode] = []
    for _ in 0..<count { nodes.append(try await ScaleOutNode(redisPorts: redisPorts)) }
    for node in nodes { _ = try node.waitForReadiness(200) }
    return nodes
  }

  private func watcher(_ name: String, on node: ScaleOutNode) throws -> ChatWatcher {
    ChatWatcher(
      try ChatClient(
        url: "ws://127.0.0.1:\(node.httpPort)/rooms/chaos", name: name, configuration: Self.testConfiguration))
  }

  /// A client that reaches "the cluster": the first running node of `preference`.
  private func roamingWatcher(_ name: String, preferring preference: [ScaleOutNode]) throws -> ChatWatcher {
    var configuration = Self.testConfiguration
    configuration.resolver = NodeResolver(nodes: preference)
    return ChatWatcher(
      try ChatClient(url: "dnssd://Cluster._http._tcp.local", name: name, room: "chaos", configuration: configuration))
  }

  /// Every id once, in increasing order (what a member must see).
  private func expectOnceInOrder(_ seen: [ChatWatcher.Seen], _ who: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let ids = seen.map(\.id)
    #expect(ids == ids.sorted() && Set(ids).count == ids.count, "\(who) saw \(ids)", sourceLocation: sourceLocation)
  }

  @Test(arguments: ScaleOutRedis.Kind.allCases)
  func everyClientOnEveryNodeSeesEveryMessageOnceInTheSameOrder(_ kind: ScaleOutRedis.Kind) async throws {
    let redis = try ScaleOutRedis(kind)
    let nodes = try await nodes(3, redisPorts: redis.ports)
    let watchers = try nodes.indices.map { try watcher("ws\($0)", on: nodes[$0]) }
    let lines = try nodes.indices.map { try RawChatPeer(.tcp, port: nodes[$0].tcpPort, name: "tcp\($0)") }
    let datagrams = try nodes.indices.map { try RawChatPeer(.udp, port: nodes[$0].udpPort, name: "udp\($0)") }
    for w in watchers { try w.waitConnected() }
    // Every member of every node appears in /who on every node (presence is cluster-wide).
    let everyone = nodes.indices.flatMap { ["ws\($0)", "tcp\($0)", "udp\($0)"] }
    for (index, peer) in lines.enumerated() {
      try untilWho(peer, lists: everyone, node: index)
    }
    for peer in datagrams {
      try peer.waitFor("the iam echo") { $0.contains { $0.hasPrefix("Server received: iam:") } }
    }

    let perNode = 8
    let acked = Locked<[String: UInt64]>([:])
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (index, w) in watchers.enumerated() {
        group.addTask {
          for n in 0..<perNode {
            let text = "m\(index)-\(n)"
            let id = try await w.client.send(text)
            acked.withLock { $0[text] = id ?? 0 }
          }
        }
      }
      try await group.waitForAll()
    }
    let ids = acked.value
    #expect(Set(ids.values) == Set(1...UInt64(3 * perNode)), "\(ids)")
    let metrics = try ScaleOutNode.get("/metrics", port: nodes[0].httpPort)
    #expect(metrics.contains("switchboard_redis_lost_write_epochs_total 0"), "\(metrics.suffix(300))")
    let texts = Set(ids.keys)
    for w in watchers { try w.waitForTexts(texts) }
    let reference = watchers[0].messages
    for w in watchers {
      #expect(w.messages == reference, "\(w.client.name) saw another order")
      #expect(w.messages.map(\.id) == Array(1...UInt64(3 * perNode)))
    }
    // TCP and UDP members get the same stream as lines, in the same order.
    let expected = reference.map(\.text)
    for peer in lines + datagrams {
      try peer.waitFor("all \(expected.count) messages") { lines in
        lines.compactMap(Self.chatText).filter(texts.contains) == expected
      }
    }
  }

  @Test(arguments: ScaleOutRedis.Kind.allCases)
  func aKilledNodesClientsResumeOnTheOthersWithNothingAcknowledgedLost(_ kind: ScaleOutRedis.Kind) async throws {
    let redis = try ScaleOutRedis(kind)
    let nodes = try await nodes(3, redisPorts: redis.ports)
    let sender = try roamingWatcher("sender", preferring: [nodes[0], nodes[1], nodes[2]])
    let reader = try roamingWatcher("reader", preferring: [nodes[0], nodes[2], nodes[1]])
    let steady = try watcher("steady", on: nodes[2])
    for w in [sender, reader, steady] { try w.waitConnected() }

    var acked: [String: UInt64] = [:]
    for n in 0..<30 {
      if n == 10 { nodes[0].kill() }
      let text = "k\(n)"
      let id = try await withTimeout(.seconds(20)) { try await sender.client.send(text) }
      acked[text] = id ?? 0
    }
    #expect(Set(acked.values).count == 30 && !acked.values.contains(0), "\(acked)")
    let texts = Set(acked.keys)
    for w in [sender, reader, steady] {
      try w.waitForTexts(texts)
      expectOnceInOrder(w.messages, w.client.name)
      for (text, id) in acked {
        #expect(w.messages.filter { $0.text == text }.map(\.id) == [id], "\(w.client.name): \(text)")
      }
    }
    #expect(sender.connectCount >= 2 && reader.connectCount >= 2, "the clients of the killed node reconnected")
    #expect(sender.gapCount == 0 && reader.gapCount == 0)
  }

  /// Redis killed (SIGKILL) and started again on its port during a stream, keeping its data
  /// (append-only file, synced on every write): publishes made while it is away wait or get
  /// an error ack; every acknowledged message reaches the other node's member once, with
  /// its id, in the same epoch (no gap).
  @Test func redisRestartedWithItsDataDuringAStreamLosesNothingAcknowledged() async throws {
    var options = RedisServer.Options()
    options.persistent = true
    let redis = try RedisServer(options)
    let nodes = try await nodes(2, redisPort: redis.port)
    let sender = try watcher("sender", on: nodes[0])
    let reader = try watcher("reader", on: nodes[1])
    for w in [sender, reader] { try w.waitConnected() }
    var acked: [String: UInt64] = [:]
    var failed: [String] = []
    for n in 0..<20 {
      if n == 8 { try redis.restart() }
      let text = "r\(n)"
      do {
        acked[text] = try await withTimeout(.seconds(10)) { try await sender.client.send(text) } ?? 0
      } catch let error as ChatClientError where error == .notStored {
        failed.append(text)
      }
    }
    #expect(acked.count >= 12, "most publishes were acknowledged: failed \(failed)")
    try reader.waitForTexts(Set(acked.keys))
    expectOnceInOrder(reader.messages, "reader")
    for (text, id) in acked {
      #expect(reader.messages.filter { $0.text == text }.map(\.id) == [id], "\(text)")
    }
    for text in failed { #expect(reader.messages.filter { $0.text == text }.count <= 1) }
    #expect(reader.gapCount == 0 && sender.gapCount == 0, "the room kept its epoch")
  }

  /// Redis restarted without its data during a stream: the nodes find it again, the room
  /// starts a new epoch, and what is published afterwards is acknowledged and arrives on the
  /// other node — to its line member, and to its WebSocket member, which is told of the new
  /// epoch (an empty `history` with `recovered: false`, a gap) before the epoch's first
  /// message, whose id it has seen in the old one.
  @Test func redisRestartedEmptyDuringAStreamServesWhatFollows() async throws {
    let redis = try RedisServer()
    let nodes = try await nodes(2, redisPort: redis.port)
    let sender = try watcher("sender", on: nodes[0])
    let reader = try watcher("reader", on: nodes[1])
    let line = try RawChatPeer(.tcp, port: nodes[1].tcpPort, name: "line")
    for w in [sender, reader] { try w.waitConnected() }
    for n in 0..<5 { _ = try await sender.client.send("before\(n)") }
    try reader.waitForTexts(Set((0..<5).map { "before\($0)" }))
    try redis.restart()
    for node in nodes { _ = try node.waitForReadiness(200) }
    var after: Set<String> = []
    for n in 0..<5 {
      let text = "after\(n)"
      if (try? await withTimeout(.seconds(10)) { try await sender.client.send(text) }) != nil { after.insert(text) }
    }
    #expect(after.count >= 3, "publishes after the restart are acknowledged: \(after)")
    try line.waitFor("the line member gets what follows") { lines in
      Set(lines.compactMap(Self.chatText)).isSuperset(of: after)
    }
    try reader.waitForTexts(after)
    #expect(reader.gapCount >= 1, "the new epoch showed as a gap")
  }

  /// On a cluster, the master serving the room is paused (the cluster's node timeout is
  /// longer, so it stays the master): the room's publishes fail, the rest of the cluster
  /// answers, so `/readyz` and the unreachable/reachable lines are checked on one server only.
  @Test(arguments: ScaleOutRedis.Kind.allCases)
  func redisPausedLongerThanTheTimeoutsFailsPublishesAndLosesNothingAcknowledged(_ kind: ScaleOutRedis.Kind)
    async throws
  {
    let redis = try ScaleOutRedis(kind)
    let nodes = try await nodes(2, redisPorts: redis.ports)
    let sender = try watcher("sender", on: nodes[0])
    let reader = try watcher("reader", on: nodes[1])
    for w in [sender, reader] { try w.waitConnected() }
    var acked: [String: UInt64] = [:]
    for n in 0..<5 { acked["p\(n)"] = try await sender.client.send("p\(n)") ?? 0 }

    let resume = try redis.pause(masterOf: "chaos")
    var failed: [String] = []
    do {
      defer { resume() }
      if kind == .single {
        let body = try nodes[0].waitForReadiness(503)
        #expect(body.contains("redis unreachable since"), "\(body)")
      }
      for n in 5..<8 {
        do {
          acked["p\(n)"] = try await withTimeout(.seconds(10)) { try await sender.client.send("p\(n)") } ?? 0
        } catch let error as ChatClientError where error == .notStored {
          failed.append("p\(n)")
        }
      }
    }
    #expect(failed.count == 3, "each publish during the pause got an error ack: \(failed)")
    for node in nodes { _ = try node.waitForReadiness(200) }
    for n in 8..<13 { acked["p\(n)"] = try await sender.client.send("p\(n)") ?? 0 }

    try reader.waitForTexts(Set(acked.keys))
    expectOnceInOrder(reader.messages, "reader")
    for (text, id) in acked {
      #expect(reader.messages.filter { $0.text == text }.map(\.id) == [id], "\(text)")
    }
    // A failed publish may still have run on Redis (its reply was what timed out): at most once.
    for text in failed { #expect(reader.messages.filter { $0.text == text }.count <= 1) }
    guard kind == .single else { return }
    #expect(nodes[0].process.stderr.components(separatedBy: "Redis unreachable").count - 1 == 1)
    #expect(nodes[0].process.stderr.components(separatedBy: "Redis reachable again").count - 1 == 1)
  }

  /// Every node reaches Redis through proxies (on a cluster: one per master, announced by the
  /// cluster), and only the cut node's connections — found by the name they carry — stall.
  @Test(arguments: ScaleOutRedis.Kind.allCases)
  func aNodePartitionedFromRedisTurnsUnreadyWhileTheOthersGoOnAndResyncsOnResume(_ kind: ScaleOutRedis.Kind)
    async throws
  {
    let redis = try ScaleOutRedis(kind, throughProxies: true)
    let cut = try await ScaleOutNode(redisPorts: redis.ports, logLevel: "info")
    let others = try await nodes(2, redisPorts: redis.ports)
    _ = try cut.waitForReadiness(200)
    let name = try #require(cut.redisClientName, "\(cut.process.stderr)")
    let isolated = try watcher("isolated", on: cut)
    let sender = try watcher("sender", on: others[0])
    let reader = try watcher("reader", on: others[1])
    for w in [isolated, sender, reader] { try w.waitConnected() }
    _ = try await sender.client.send("before")
    try isolated.waitForTexts(["before"])

    redis.partition(clientName: name)
    let body = try cut.waitForReadiness(503)
    #expect(body.contains("redis unreachable since"), "\(body)")
    var acked: [String: UInt64] = [:]
    for n in 0..<6 { acked["cut\(n)"] = try await sender.client.send("cut\(n)") ?? 0 }
    try reader.waitForTexts(Set(acked.keys))
    for node in others { #expect(node.readiness().status == 200) }
    #expect(!isolated.messages.contains { acked[$0.text] != nil }, "nothing reaches the cut node meanwhile")

    redis.heal()
    _ = try cut.waitForReadiness(200)
    try isolated.waitForTexts(Set(acked.keys))
    expectOnceInOrder(isolated.messages, "isolated")
    #expect(isolated.messages.map(\.id) == reader.messages.map(\.id))
  }

  /// On a cluster the stalled connections are the shard connections to the room's master
  /// (the other node's too: the proxy is shared; only `quiet`'s log is checked).
  @Test(arguments: ScaleOutRedis.Kind.allCases)
  func aSilentPubSubConnectionIsFoundByTheProbeAndReplaced(_ kind: ScaleOutRedis.Kind) async throws {
    let redis = try ScaleOutRedis(kind, throughProxies: true)
    let quiet = try await ScaleOutNode(redisPorts: redis.ports)
    let other = try await ScaleOutNode(redisPorts: redis.ports)
    for node in [quiet, other] { _ = try node.waitForReadiness(200) }
    let listener = try watcher("listener", on: quiet)
    let sender = try watcher("sender", on: other)
    for w in [listener, sender] { try w.waitConnected() }
    _ = try await sender.client.send("warm-up")
    try listener.waitForTexts(["warm-up"])

    // Only what Redis sends down the pub/sub connection stops: commands still work.
    try redis.stallDeliveries(ofRoom: "chaos")
    var acked: [String: UInt64] = [:]
    for n in 0..<8 { acked["s\(n)"] = try await sender.client.send("s\(n)") ?? 0 }
    try listener.waitForTexts(Set(acked.keys), timeout: .seconds(15))
    expectOnceInOrder(listener.messages, "listener")
    #expect(listener.messages.map(\.id) == sender.messages.map(\.id))
    let log = quiet.process.stderr
    #expect(log.components(separatedBy: "pub/sub connection silent").count - 1 == 1, "\(log)")
    let replaced: Bool = eventually(timeout: .seconds(10)) {
      quiet.process.stderr.contains("pub/sub connection replaced")
    }
    #expect(replaced, "\(quiet.process.stderr)")
    _ = try quiet.waitForReadiness(200)
    #expect(!quiet.process.stderr.contains("Redis unreachable"), "the command connection never failed")
  }

  /// The JSON protocol's `who` frame answers as `/who` does: with every node's members
  /// (`ChatClient.requestMembers()` over a WebSocket to one node, a line member on the other).
  @Test func theWhoFrameListsEveryNodesMembers() async throws {
    let redis = try ScaleOutRedis(.single)
    let nodes = try await nodes(2, redisPorts: redis.ports)
    let far = try RawChatPeer(.tcp, port: nodes[1].tcpPort, name: "far")
    let client = try ChatClient(
      url: "ws://127.0.0.1:\(nodes[0].httpPort)/rooms/chaos", name: "near", configuration: Self.testConfiguration)
    let answers = Locked<[[String]]>([])
    let running = Task {
      try await client.run { session in
        for await event in session.events {
          if case .members(_, let names) = event { answers.withLock { $0.append(names) } }
        }
      }
    }
    // Presence reaches the other node through Redis: ask until it has (a pace, not a wait).
    let deadline = ContinuousClock.now + .seconds(15)
    while answers.value.last != ["far", "near"] && ContinuousClock.now < deadline {
      try await client.requestMembers()
      try await Task.sleep(for: .milliseconds(100))
    }
    #expect(answers.value.last == ["far", "near"], "\(answers.value.suffix(3))")
    far.send("/who")
    try far.waitFor("the line /who") { $0.contains("* in chaos (2): far, near") }
    client.close()
    _ = try? await running.value
  }

  // MARK: Helpers

  /// The text of a chat line `NAME: TEXT` (TCP and UDP members get those).
  private static func chatText(_ line: String) -> String? {
    guard let range = line.range(of: ": "), !line.hasPrefix("*"), !line.hasPrefix("Server received") else {
      return nil
    }
    return String(line[range.upperBound...])
  }

  /// Asks `/who` until the answer lists every name in `names`.
  private func untilWho(_ peer: RawChatPeer, lists names: [String], node: Int) throws {
    var answer = ""
    let listed = eventually(timeout: .seconds(15)) {
      peer.send("/who")
      let seen = eventually(timeout: .milliseconds(500)) { peer.lines.contains { $0.hasPrefix("* in chaos") } }
      guard seen, let last = peer.lines.last(where: { $0.hasPrefix("* in chaos") }) else { return false }
      answer = last
      return names.allSatisfy { last.contains($0) }
    }
    #expect(listed, "node \(node): \(answer)")
  }
}
