import Dispatch
import SwitchboardChat
import SwitchboardIO
import SwitchboardRESP
import SwitchboardTestSupport
import SwitchboardWire
import Testing

@testable import SwitchboardRedis

/// The broker seam's cluster behaviour against a real `redis-server`: a client's `ref`
/// as idempotency key across nodes, rooms closed when idle and reopened, and join, leave
/// and rename lines seen on every node with cluster-wide counts.
@Suite(.onTestThreads, .enabled(ifAvailable: RedisServer.isInstalled, "redis-server is not installed"))
struct RedisBrokerSeamTests {
  @Test func aRefRetriedOnAnotherNodeIsKeptOnceAndAckedWithTheFirstID() async throws {
    let server = try RedisServer()
    let nodes = try (0..<2).map { _ in try BrokerNode(server) }
    defer { for node in nodes { node.stop() } }
    let first = try nodes[0].join("ann")
    let watcher = try nodes[1].join("bob")
    let ids = Locked<[UInt64]>([])
    let record: @Sendable (Result<PublishReceipt, BrokerError>) -> Void = { result in
      if case .success(let receipt) = result { ids.withLock { $0.append(receipt.id) } }
    }
    nodes[0].publish(first, "hello", ref: #""c1""#, completion: record)
    try await eventually("the first ack") { ids.value.count == 1 }
    // The client lost the ack, reconnected to the other node (same name, same room) and
    // sent again with the same ref.
    let retry = try nodes[1].join("ann")
    nodes[1].publish(retry, "hello", ref: #""c1""#, completion: record)
    // Same name and ref, other text: another message (the key holds the text).
    nodes[1].publish(retry, "hello again", ref: #""c1""#, completion: record)
    try await eventually("three acks") { ids.value.count == 3 }
    #expect(ids.value[0] == ids.value[1])
    #expect(ids.value[2] == ids.value[0] + 1)
    // Nothing after the other text: once it is in, a second "hello" would be too.
    try await eventually("bob has the other text") { watcher.messages.contains { $0.text == "hello again" } }
    for member in [first, watcher, retry] {
      #expect(member.messages.filter { $0.text == "hello" }.count <= 1, "\(member.name) saw it twice")
    }
    #expect(watcher.messages.map(\.text) == ["hello", "hello again"])
    let kept = try #require(
      try await historyAfter(0, on: nodes[0]).map { $0.map(\.text) })
    #expect(kept == ["hello", "hello again"])
  }

  @Test func anIdleRoomIsUnsubscribedAndReopensInItsEpoch() async throws {
    let server = try RedisServer()
    var quick = HubConfiguration()
    quick.roomIdleGrace = .milliseconds(200)
    let idle = try BrokerNode(server, hub: quick)
    let other = try BrokerNode(server)
    defer { for node in [idle, other] { node.stop() } }
    let ann = try idle.join("ann")
    let bob = try other.join("bob")
    for i in 1...3 { idle.publish(ann, "before \(i)") }
    try await eventually("bob has three") { bob.messages.count == 3 }
    let epoch = try #require(idle.hub.epoch(room: "lobby"))
    idle.queue.sync { idle.hub.leave(ann.id) }
    try await eventually("the room closed on the idle node") { idle.hub.epoch(room: "lobby") == nil }
    // Only the other node listens to the room's channel now.
    try await expectSubscribers(1, of: "lobby", on: server)
    for i in 1...2 { other.publish(bob, "meanwhile \(i)") }
    try await eventually("bob has five") { bob.messages.count == 5 }
    // The next join opens it again: same epoch, what was said meanwhile in its history,
    // and live delivery again.
    let cat = try idle.join("cat", since: 3, epoch: epoch)
    let result = try #require(cat.joinResult)
    #expect(result.epoch == epoch)
    #expect(result.complete)
    #expect(result.history.map(\.text) == ["meanwhile 1", "meanwhile 2"])
    try await expectSubscribers(2, of: "lobby", on: server)
    other.publish(bob, "after")
    try await eventually("cat hears live") { cat.messages.map(\.text) == ["after"] }
    #expect(cat.messages.map(\.id) == [6])
  }

  @Test func joinLeaveAndRenameLinesReachEveryNodeWithClusterCounts() async throws {
    let server = try RedisServer()
    let nodes = try (0..<3).map { _ in
      try BrokerNode(server, presenceRefresh: .milliseconds(200), presenceLifetime: .milliseconds(800))
    }
    defer { for node in nodes { node.stop() } }
    let bob = try nodes[1].join("bob")
    let cat = try nodes[2].join("cat")
    try await eventually("cat's join reached bob") {
      bob.presenceEvents.contains { $0.author == "cat" && $0.kind == .join }
    }
    // Every node shows one change with the same count, the one the presence script
    // computed: ann's own node too (its own line is in `presenceEvents`).
    let ann = try nodes[0].join("ann")
    for member in [ann, bob, cat] {
      try await eventually("\(member.name) sees ann join") {
        member.presenceEvents.contains { $0.author == "ann" && $0.kind == .join }
      }
      let line = member.presenceEvents.first { $0.author == "ann" }!
      #expect(line.members == 3, "\(member.name) counted \(line.members)")
      #expect(line.room == "lobby")
      #expect(line.color == ann.joinResult?.color)
    }
    nodes[1].queue.sync { _ = nodes[1].hub.rename(bob.id, to: "robert") }
    for member in [ann, bob, cat] {
      try await eventually("\(member.name) sees the rename") {
        member.presenceEvents.contains {
          $0.kind == .rename(from: "bob") && $0.author == "robert" && $0.members == 3
        }
      }
    }
    // A leave seen on the leaver's node: dan, a second member there, sees it with the
    // cluster-wide count as the others do.
    let dan = try nodes[0].join("dan")
    for member in [ann, bob, cat, dan] {
      try await eventually("\(member.name) sees dan join") {
        member.presenceEvents.contains { $0.kind == .join && $0.author == "dan" && $0.members == 4 }
      }
    }
    nodes[0].queue.sync { nodes[0].hub.leave(ann.id) }
    for member in [bob, cat, dan] {
      try await eventually("\(member.name) sees ann leave") {
        member.presenceEvents.contains { $0.kind == .leave && $0.author == "ann" && $0.members == 3 }
      }
    }
    nodes[0].queue.sync { nodes[0].hub.leave(dan.id) }
    try await eventually("robert sees dan leave") {
      bob.presenceEvents.contains { $0.kind == .leave && $0.author == "dan" && $0.members == 2 }
    }
    // A node sees its own members' lines once, not again from Redis's announcement.
    #expect(bob.presenceEvents.filter { $0.kind == .rename(from: "bob") }.count == 1)
    #expect(cat.presenceEvents.filter { $0.author == "cat" }.count == 1)
    #expect(dan.presenceEvents.filter { $0.author == "ann" }.count == 1)
    // A node that dies (stops refreshing, entries left behind): its member's entry
    // expires and the survivors see a leave, once.
    nodes[2].freezePresence()
    try await eventually("robert sees cat leave") {
      bob.presenceEvents.contains { $0.kind == .leave && $0.author == "cat" && $0.members == 1 }
    }
    // The next refreshes find nothing more to expire.
    let leaves = bob.presenceEvents.count
    let refreshed = nodes[1].broker.presenceRefreshes
    try await eventually("three more refreshes") { nodes[1].broker.presenceRefreshes >= refreshed + 3 }
    #expect(bob.presenceEvents.count == leaves)
    #expect(bob.presenceEvents.filter { $0.kind == .leave && $0.author == "cat" }.count == 1)
  }
}

/// Kept messages of the lobby after `id`, through `node`'s broker.
private func historyAfter(_ id: UInt64, on node: BrokerNode) async throws -> [ChatMessage]? {
  let answer = Locked<Result<[ChatMessage], BrokerError>?>(nil)
  node.broker.history(room: "lobby", after: id, limit: 100, on: QueueExecutor(queue: node.queue)) { result in
    answer.withLock { $0 = result }
  }
  try await eventually("history answered") { answer.value != nil }
  return try answer.value?.get()
}

/// Waits until `count` connections subscribe to `room`'s channel (`PUBSUB NUMSUB`).
private func expectSubscribers(_ count: Int, of room: String, on server: RedisServer) async throws {
  try await withLoop { loop in
    let client = try await RedisClient.connect(configuration: .test(server.url()), on: loop)
    defer { client.close() }
    try await untilSuccess {
      let reply = try await client.send(RESPCommand("PUBSUB", "NUMSUB", RedisRoomKeys(room: room).channel))
      let now = reply.elements?.last?.integer
      guard now == Int64(count) else {
        throw TestFailure("\(now.map(String.init) ?? "?") subscribers, not \(count)")
      }
    }
  }
}
