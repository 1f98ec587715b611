import Dispatch
import SwitchboardChat
import SwitchboardIO
import SwitchboardLog
import SwitchboardRESP
import SwitchboardTestSupport
import Testing

@testable import SwitchboardRedis

/// The cluster client and the Redis broker against a real three-master Redis Cluster on
/// loopback (``RedisCluster``): slots, redirects, rooms spread over every master, and a
/// room's slot moved to another master while messages flow.
@Suite(.onTestThreads, .enabled(ifAvailable: RedisCluster.isInstalled, "redis-server/redis-cli are not installed"))
struct RedisClusterTests {
  @Test func keySlotsMatchTheServersKeyslot() async throws {
    let cluster = try RedisCluster()
    let keys =
      ["123456789", "a", "{a}b", "x{}y", "{{z}}", "sb:{}", RedisRoomKeys(room: "général {x}").meta]
      + (0..<20).map { RedisRoomKeys(room: "room-\($0)").log }
    for key in keys {
      let answer = try cluster.cli(0, "CLUSTER", "KEYSLOT", key).trimmingCharacters(
        in: .whitespacesAndNewlines)
      #expect(Int(answer) == RedisKeySlot.slot(of: key), "\(key)")
    }
  }

  @Test func commandsGoToTheirMasterAndFollowMovedAndAsk() async throws {
    let cluster = try RedisCluster()
    try await withLoop { loop in
      let client = try await RedisClusterClient.connect(
        seeds: [.test(cluster.url(1))], on: loop, refreshInterval: .seconds(30))
      defer { client.close() }
      #expect(client.map.coveredSlots == RedisKeySlot.count)
      let keys = (0..<30).map { "key-\($0)" }
      for key in keys { _ = try await client.send(RESPCommand("SET", key, "v-" + key)) }
      // Every key sits on the master its slot says (a key on the wrong one would be MOVED away).
      #expect(Set(keys.compactMap { client.map.node(forKey: Array($0.utf8))?.port }) == Set(cluster.ports))
      for key in keys { #expect(try await client.send(RESPCommand("GET", key)).string == "v-" + key) }
      #expect(await client.statistics().moved == 0)

      // A slot moved behind the client's back: MOVED, then the new master.
      let slot = RedisKeySlot.slot(of: "key-0")
      let from = try #require(try cluster.owner(ofSlot: slot))
      try cluster.migrate(slot: slot, from: from, to: (from + 1) % 3)
      #expect(try await client.send(RESPCommand("GET", "key-0")).string == "v-key-0")
      #expect(await client.statistics().moved == 1)
      #expect(client.map.node(forSlot: slot)?.port == cluster.ports[(from + 1) % 3])

      // A slot half migrated: the moved key answers through ASK, the other from the source.
      let a = "{half}one"
      let b = "{half}two"
      _ = try await client.send(RESPCommand("SET", a, "1"))
      _ = try await client.send(RESPCommand("SET", b, "2"))
      let halfSlot = RedisKeySlot.slot(of: a)
      let source = try #require(try cluster.owner(ofSlot: halfSlot))
      let target = (source + 1) % 3
      try cluster.cli(target, "CLUSTER", "SETSLOT", String(halfSlot), "IMPORTING", try cluster.nodeID(source))
      try cluster.cli(source, "CLUSTER", "SETSLOT", String(halfSlot), "MIGRATING", try cluster.nodeID(target))
      try cluster.cli(source, "MIGRATE", "127.0.0.1", String(cluster.ports[target]), a, "0", "5000")
      #expect(try await client.send(RESPCommand("GET", a)).string == "1")
      #expect(try await client.send(RESPCommand("GET", b)).string == "2")
      #expect(await client.statistics().asked == 1)
      #expect(client.map.node(forSlot: halfSlot)?.port == cluster.ports[source], "ASK leaves the map alone")
    }
  }

  /// Join and leave lines are announced by scripts on the room's master; on a cluster they
  /// must go out as shard messages (`SPUBLISH`), which is what the nodes subscribe to.
  @Test func joinAndLeaveLinesCrossNodesOnACluster() async throws {
    let cluster = try RedisCluster()
    let room = try cluster.room(on: 1, prefix: "lines")
    let nodes = try (0..<3).map { try BrokerNode(url: cluster.url($0)) }
    defer { nodes.forEach { $0.stop() } }
    let bob = try nodes[1].join("bob", room: room)
    let cat = try nodes[2].join("cat", room: room)
    try await eventually("cat's join reached bob") {
      bob.presenceEvents.contains { $0.author == "cat" && $0.kind == .join }
    }
    let ann = try nodes[0].join("ann", room: room)
    // ann's own node shows her line with the cluster-wide count too.
    for member in [ann, bob, cat] {
      try await eventually("\(member.name) sees ann join") {
        member.presenceEvents.contains { $0.author == "ann" && $0.kind == .join && $0.members == 3 }
      }
    }
    nodes[0].queue.sync { nodes[0].hub.leave(ann.id) }
    for member in [bob, cat] {
      try await eventually("\(member.name) sees ann leave") {
        member.presenceEvents.contains { $0.kind == .leave && $0.author == "ann" && $0.members == 2 }
      }
    }
  }

  @Test func nodesShareRoomsOnEveryMasterWithOneOrderAndClusterWidePresence() async throws {
    let cluster = try RedisCluster()
    let rooms = try (0..<3).map { try cluster.room(on: $0, prefix: "room") }
    let nodes = try (0..<3).map { try BrokerNode(url: cluster.url($0)) }
    defer { nodes.forEach { $0.stop() } }
    #expect(nodes.allSatisfy { $0.broker.isCluster })
    let members = try nodes.enumerated().flatMap { index, node in
      try rooms.map { room in try node.join("n\(index)-\(room)", room: room) }
    }
    let acks = Locked(0)
    let rounds = 10
    for round in 0..<rounds {
      for (index, member) in members.enumerated() {
        member.node.publish(member, "\(index)-\(round)") {
          if case .success = $0 { acks.withLock { $0 += 1 } }
        }
      }
    }
    try await eventually("every ack") { acks.value == rounds * members.count }
    let perRoom = rounds * nodes.count
    for (r, room) in rooms.enumerated() {
      let inRoom = members.enumerated().filter { $0.offset % rooms.count == r }.map(\.element)
      try await eventually("every delivery in \(room)") { inRoom.allSatisfy { $0.messages.count == perRoom } }
      let reference = inRoom[0].messages
      #expect(reference.map(\.id) == Array(1...UInt64(perRoom)))
      for member in inRoom { #expect(member.messages == reference, "\(member.name) saw another order") }
      let everybody = inRoom.map(\.name).sorted()
      try await eventually("/who of \(room)") { nodes.allSatisfy { $0.who(room: room) == everybody } }
    }
    // Resuming on a fresh node from the fifth message gets the rest of the stream.
    let epoch = try #require(nodes[0].hub.epoch(room: rooms[2]))
    let fourth = try BrokerNode(url: cluster.url(2))
    defer { fourth.stop() }
    let resumed = try fourth.join("late", room: rooms[2], since: 5, epoch: epoch)
    let result = try #require(resumed.joinResult)
    #expect(result.epoch == epoch)
    #expect(result.history.map(\.id) == Array(6...UInt64(perRoom)))
  }

  @Test func aRoomsSlotMovedMidStreamLosesNothingAcknowledged() async throws {
    let cluster = try RedisCluster()
    let room = try cluster.room(on: 0, prefix: "moving")
    let settings = RedisClusterSettings(refreshInterval: .milliseconds(200))
    // While the slot migrates, a publish whose keys are split between the two masters gets
    // TRYAGAIN and is retried until its command deadline. The move is the test's own
    // redis-cli calls, which a loaded run spawns slowly (47 s for this test in CI, and one
    // publish answered with an error after the default 3 s): the deadline here outlasts it.
    let writerNode = try BrokerNode(url: cluster.url(0), cluster: settings, commandTimeout: .seconds(30))
    let readerNode = try BrokerNode(url: cluster.url(2), cluster: settings, commandTimeout: .seconds(30))
    defer { [writerNode, readerNode].forEach { $0.stop() } }
    let writer = try writerNode.join("writer", room: room)
    let reader = try readerNode.join("reader", room: room)
    /// Before, while and after the slot moves.
    enum Phase: Int { case before, moving, after }
    let phase = Locked(Phase.before)
    let acked = Locked<[(id: UInt64, phase: Phase)]>([])
    let failed = Locked(0)
    // One publish at a time, each after the last one's ack, until 30 went through after the
    // move (at most 5,000).
    let publishing = Task {
      var afterwards = 0
      for i in 1...5000 where afterwards < 30 {
        let result = await withCheckedContinuation { continuation in
          writerNode.publish(writer, "m\(i)") { continuation.resume(returning: $0) }
        }
        let now = phase.value
        if now == .after { afterwards += 1 }
        switch result {
        case .success(let receipt): acked.withLock { $0.append((receipt.id, now)) }
        case .failure: failed.withLock { $0 += 1 }
        }
      }
    }
    try await eventually("some published") { acked.value.count >= 20 }
    let slot = RedisKeySlot.slot(of: RedisRoomKeys(room: room).meta)
    phase.withLock { $0 = .moving }
    try cluster.migrate(slot: slot, from: 0, to: 1)
    phase.withLock { $0 = .after }
    await publishing.value
    #expect(try cluster.owner(ofSlot: slot) == 1)
    #expect(failed.value == 0)
    let ids = acked.value.map(\.id)
    #expect(ids == Array(1...UInt64(ids.count)))
    #expect(acked.value.contains { $0.phase == .after })
    try await eventually("the reader has every acked message") {
      Set(reader.messages.map(\.id)).isSuperset(of: ids)
    }
    #expect(reader.messages.map(\.id) == Array(1...UInt64(reader.messages.count)), "once each, in order")
    #expect(writer.messages.map(\.id) == reader.messages.map(\.id))
  }

  /// A shard connection that stays open but stops delivering — its master's proxy holds back
  /// what the master sends on it — is found by that master's probe and replaced; the other
  /// masters' connections are not, and live delivery on that shard resumes.
  @Test func aSilentShardConnectionIsFoundByItsProbeAndReplacedAlone() async throws {
    let cluster = try RedisCluster(throughProxies: true)
    let rooms = try (0..<3).map { try cluster.room(on: $0, prefix: "probed") }
    let log = MemoryLogSink()
    let listenerNode = try BrokerNode(
      url: cluster.url(0), probeInterval: .milliseconds(200), probeTimeout: .milliseconds(300),
      logger: Log(label: "listener", level: .notice, sink: log))
    let senderNode = try BrokerNode(url: cluster.url(1))
    defer { for node in [listenerNode, senderNode] { node.stop() } }
    let listeners = try rooms.map { try listenerNode.join("ann", room: $0) }
    let senders = try rooms.map { try senderNode.join("bob", room: $0) }
    let acks = Locked(0)
    func send(_ room: Int, _ text: String) {
      senderNode.publish(senders[room], text) { if case .success = $0 { acks.withLock { $0 += 1 } } }
    }
    func arrived(_ room: Int, _ text: String) -> Bool {
      listeners[room].messages.contains { $0.text == text }
    }
    let shards = cluster.announcedPorts.map { "127.0.0.1:\($0)" }
    try await eventually("every master's connection probed: \(listenerNode.broker.shardProbePhases)") {
      let phases = listenerNode.broker.shardProbePhases
      return Set(phases.keys) == Set(shards) && phases.values.allSatisfy { $0 == .probing }
    }
    for room in rooms.indices { send(room, "warm-up \(room)") }
    try await eventually("warm-up delivered") { rooms.indices.allSatisfy { arrived($0, "warm-up \($0)") } }

    // Only what master 1 sends down the shard connections stops; commands still flow.
    cluster.proxies[1].stall(.toClient, whereClientSent: "SSUBSCRIBE")
    send(1, "during")
    try await eventually(timeout: .seconds(10), "master 1's connection replaced") {
      listenerNode.broker.pubsubReplacementsByServer[shards[1]] == 1
    }
    try await eventually("what was published meanwhile re-synced") { arrived(1, "during") }
    try await eventually("probing again") { listenerNode.broker.shardProbePhases[shards[1]] == .probing }
    // Nothing re-syncs now: this one can only come over the new connection.
    send(1, "after")
    for room in [0, 2] { send(room, "other \(room)") }
    try await eventually("live delivery on every shard") {
      arrived(1, "after") && arrived(0, "other 0") && arrived(2, "other 2")
    }
    // A message can reach the listener's node over pub/sub before its ack reaches the sender.
    try await eventually("every publish acknowledged (\(acks.value) of 7)") { acks.value == 7 }
    #expect(listenerNode.broker.pubsubReplacementsByServer == [shards[1]: 1], "the other shards kept theirs")
    #expect(listenerNode.broker.prometheusText().contains("switchboard_redis_pubsub_replacements_total 1\n"))
    let silent = log.records.filter { $0.message.hasPrefix("Redis pub/sub connection silent") }
    #expect(silent.map { $0.metadata["server"] } == [shards[1]], "one line, naming the master")
    #expect(log.records.contains { $0.message.hasPrefix("Redis pub/sub connection replaced") })
    #expect(!log.records.contains { $0.message.hasPrefix("Redis unreachable") }, "commands never failed")
    for listener in listeners {
      let ids = listener.messages.map(\.id)
      #expect(ids == Array(1...UInt64(ids.count)), "once each, in order")
    }
  }
}
