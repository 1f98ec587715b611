import Foundation
import SwitchboardChat
import SwitchboardTestSupport
import Testing

@testable import SwitchboardRedis

#if canImport(Glibc)
  import Glibc
#endif

/// A Redis failover to a replica that had not received the newest writes: a real master,
/// a real `--replicaof` replica whose replication link runs through a ``StallingProxy`` (so
/// the test decides how far behind it is), and the nodes reaching "Redis" through another
/// proxy that the test points at the replica once it is promoted — one URL failing over.
@Suite(.onTestThreads, .enabled(ifAvailable: RedisCluster.isInstalled, "redis-server or redis-cli is not installed"))
struct RedisFailoverTests {
  /// A master and a `--replicaof` replica in sync, the replication link through ``link``.
  private struct LaggingReplica {
    let master: RedisServer
    let link: StallingProxy
    let replica: RedisServer

    init() async throws {
      // No wait for more replicas before the first sync (Redis 7 waits 5 s by default).
      master = try RedisServer(RedisServer.Options(arguments: ["--repl-diskless-sync-delay", "0"]))
      link = try StallingProxy(upstreamPort: master.port)
      replica = try RedisServer(RedisServer.Options(replicaOf: link.port))
      let replica = replica
      try await eventually(timeout: .seconds(30), "the replica in sync") {
        (try? replica.cli("INFO", "replication"))?.contains("master_link_status:up") ?? false
      }
    }

    /// Waits until the replica holds `last` for `room`, then stalls the link: from now on
    /// the master acknowledges writes the replica never gets.
    func fallBehind(room: String = "lobby", at last: Int) async throws {
      let meta = RedisRoomKeys(room: room).meta
      let held = Locked("")
      try await eventually(timeout: .seconds(20), "the replica holds \(last), not \(held.value)") {
        held.withLock { $0 = (try? replica.cli("HGET", meta, "last")) ?? "(no answer)" }
        return held.value == "\(last)\n"
      }
      link.stall()
    }

    /// Kills the master and promotes the replica; returns the `last` it holds for `room`.
    func failOver(room: String = "lobby") throws -> String {
      master.kill()
      try replica.cli("REPLICAOF", "NO", "ONE")
      return try replica.cli("HGET", RedisRoomKeys(room: room).meta, "last")
    }

    /// Waits until the (promoted) replica holds an epoch other than `before` for `room`.
    func newEpoch(after before: String, room: String = "lobby", timeout: Duration = .seconds(20)) async throws {
      try await eventually(timeout: timeout, "a new epoch in Redis") {
        let epoch = self.epoch(room: room)
        return epoch != nil && epoch != before && epoch != ""
      }
    }

    /// The epoch the (promoted) replica holds for `room`.
    func epoch(room: String = "lobby") -> String? {
      let epoch = try? replica.cli("HGET", RedisRoomKeys(room: room).meta, "epoch")
      return epoch?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func close() { link.close() }
  }

  /// Ids that stand for two texts within one epoch, as `member` saw them.
  private static func reusedIDs(_ member: RecordingMember) -> [UInt64] {
    member.messagesByEpoch.flatMap { messages in
      Dictionary(grouping: messages, by: \.id).filter { Set($0.value.map(\.text)).count > 1 }.keys
    }
  }

  @Test func aFailoverToALaggingReplicaStartsANewEpochOnceAndReusesNoId() async throws {
    let redis = try await LaggingReplica()
    defer { redis.close() }
    let front = try StallingProxy(upstreamPort: redis.master.port)
    defer { front.close() }
    let nodes = try (0..<2).map { _ in try BrokerNode(url: RedisURL(host: "127.0.0.1", port: front.port)) }
    defer { nodes.forEach { $0.stop() } }
    let a = try nodes[0].join("a")
    let b = try nodes[1].join("b")
    for i in 1...5 { a.node.publish(a, "one \(i)") }
    try await eventually("five everywhere") { a.messages.count == 5 && b.messages.count == 5 }
    try await redis.fallBehind(at: 5)
    let before = try #require(nodes[0].hub.epoch(room: "lobby"))

    // The replica falls behind: five more writes are acknowledged by the master only.
    let acked = Locked<[UInt64]>([])
    for i in 6...10 {
      b.node.publish(b, "one \(i)") { if case .success(let r) = $0 { acked.withLock { $0.append(r.id) } } }
    }
    try await eventually("five more acked") { acked.value.count == 5 }
    try await eventually("ten everywhere") { a.messages.count == 10 && b.messages.count == 10 }

    // The master dies; the replica is promoted five writes behind; "Redis" is the replica now.
    let promoted = try redis.failOver()
    #expect(promoted == "5\n", "the promoted replica holds last = \(promoted)")
    front.redirect(to: redis.replica.port)

    // The nodes re-sync (or publish) against it, find ids 6…10 gone, and the room starts a
    // new epoch — once, however many nodes noticed.
    try await redis.newEpoch(after: before)
    let after = Locked(0)
    for i in 1...3 {
      a.node.publish(a, "two \(i)") { if case .success = $0 { after.withLock { $0 += 1 } } }
    }
    try await eventually(timeout: .seconds(20), "acks after the failover") { after.value == 3 }
    try await eventually("both see the new epoch's messages") {
      [a, b].allSatisfy { $0.messages.filter { $0.text.hasPrefix("two") }.count == 3 }
    }
    let epoch = try #require(nodes[0].hub.epoch(room: "lobby"))
    #expect(epoch != before)
    #expect(nodes[1].hub.epoch(room: "lobby") == epoch)
    #expect(nodes.map(\.broker.lostWriteEpochs).reduce(0, +) == 1, "the epoch changed once")
    for member in [a, b] {
      // Told of the new epoch (JSON clients: an empty history, recovered: false) before its messages.
      #expect(member.epochChanges == [epoch], "\(member.name)")
      let epochs = member.messagesByEpoch
      #expect(epochs.count == 2)
      #expect(epochs.first?.map(\.text) == (1...10).map { "one \($0)" }, "\(member.name)")
      #expect(epochs.first?.map(\.id) == Array(1...10), "\(member.name)")
      #expect(epochs.last?.map(\.text) == (1...3).map { "two \($0)" }, "\(member.name)")
      #expect(epochs.last?.map(\.id) == [1, 2, 3], "\(member.name)")
    }
    let text = nodes[0].broker.prometheusText() + nodes[1].broker.prometheusText()
    #expect(text.contains("switchboard_redis_lost_write_epochs_total 1"))
  }

  /// The lost write no node's `last` check sees: after the failover a node that never saw
  /// ids 6…10 publishes on the new master first and gets them again, for other texts; the
  /// node that saw them finds that at its re-sync, by the stream's entry at its newest id.
  @Test func idsReusedByAnotherNodeAfterAFailoverAreFoundAtTheResync() async throws {
    let redis = try await LaggingReplica()
    defer { redis.close() }
    // Node A reaches "Redis" through its own proxy, so the test decides when it comes back.
    let front = try StallingProxy(upstreamPort: redis.master.port)
    defer { front.close() }
    let nodeA = try BrokerNode(url: RedisURL(host: "127.0.0.1", port: front.port))
    defer { nodeA.stop() }
    let a = try nodeA.join("a")
    for i in 1...5 { nodeA.publish(a, "one \(i)") }
    try await eventually("five delivered") { a.messages.count == 5 }
    try await redis.fallBehind(at: 5)
    let before = try #require(nodeA.hub.epoch(room: "lobby"))
    let ackedA = Locked(0)
    for i in 6...10 {
      nodeA.publish(a, "one \(i)") { if case .success = $0 { ackedA.withLock { $0 += 1 } } }
    }
    try await eventually("five more acked by the master only") { ackedA.value == 5 && a.messages.count == 10 }

    // The master dies and the replica is promoted; A's proxy still leads to the dead master,
    // so A stays away while node B — which never saw 6…10 — opens the room on the new master
    // and publishes: the new master hands out 6…11, reusing A's five ids for B's texts.
    let promoted = try redis.failOver()
    #expect(promoted == "5\n", "the promoted replica holds last = \(promoted)")
    let nodeB = try BrokerNode(url: redis.replica.url())
    defer { nodeB.stop() }
    let b = try nodeB.join("b")
    let ackedB = Locked<[UInt64]>([])
    for i in 6...11 {
      nodeB.publish(b, "b \(i)") { if case .success(let r) = $0 { ackedB.withLock { $0.append(r.id) } } }
    }
    try await eventually("B's six acked") { ackedB.value.count == 6 && b.messages.count == 6 }
    #expect(ackedB.value.sorted() == Array(6...11))
    #expect(redis.epoch() == before, "B's publishes left the epoch alone (B had seen nothing past 5)")
    #expect(nodeB.broker.lostWriteEpochs == 0)

    // A comes back with a publish waiting for the connection. Whichever reaches Redis first
    // — that publish or A's re-sync — finds another body at id 10, the newest A delivered.
    let first = Locked<PublishReceipt?>(nil)
    nodeA.publish(a, "two 1") { if case .success(let r) = $0 { first.withLock { $0 = r } } }
    front.redirect(to: redis.replica.port)
    try await redis.newEpoch(after: before, timeout: .seconds(30))
    try await eventually("the waiting publish acked") { first.value != nil }
    #expect(first.value?.id == 1, "the waiting publish is the new epoch's first message")
    let acked = Locked(0)
    for i in 2...3 {
      nodeA.publish(a, "two \(i)") { if case .success = $0 { acked.withLock { $0 += 1 } } }
    }
    try await eventually(timeout: .seconds(20), "acks in the new epoch") { acked.value == 2 }
    try await eventually("both see the new epoch's messages") {
      [a, b].allSatisfy { $0.messages.filter { $0.text.hasPrefix("two") }.count == 3 }
    }
    let epoch = try #require(nodeA.hub.epoch(room: "lobby"))
    #expect(epoch != before)
    #expect(nodeB.hub.epoch(room: "lobby") == epoch)
    #expect(nodeA.broker.lostWriteEpochs == 1, "A changed the epoch, once")
    #expect(nodeB.broker.lostWriteEpochs == 0)
    #expect(nodeA.broker.prometheusText().contains("switchboard_redis_lost_write_epochs_total 1"))
    // Each member was told of the new epoch once (JSON clients: recovered: false), and no id
    // stands for two texts within one epoch for anyone.
    for (member, first) in [(a, (1...10).map { "one \($0)" }), (b, (6...11).map { "b \($0)" })] {
      #expect(member.epochChanges == [epoch], "\(member.name)")
      #expect(member.messagesByEpoch.count == 2, "\(member.name)")
      #expect(member.messagesByEpoch.first?.map(\.text) == first, "\(member.name)")
      #expect(member.messagesByEpoch.last?.map(\.text) == (1...3).map { "two \($0)" }, "\(member.name)")
      #expect(member.messagesByEpoch.last?.map(\.id) == [1, 2, 3], "\(member.name)")
      #expect(Self.reusedIDs(member).isEmpty, "\(member.name)")
    }
    // A client resuming after id 10 of the old epoch is told its history is not complete.
    let resumed = try nodeB.join("c", since: 10, epoch: before)
    #expect(resumed.joinResult?.epoch == epoch)
    #expect(resumed.joinResult?.complete == false)
  }

  /// The re-sync check's two other answers, without a failover: a stream trimmed past the
  /// newest id a node delivered is no loss, and that entry gone from a stream that still
  /// holds older ones is (`XDEL` stands in for a write the new master lacks).
  @Test func aResyncPastTrimmedEntriesKeepsTheEpochAndOneMissingEntryChangesIt() async throws {
    let server = try RedisServer()
    let front = try StallingProxy(upstreamPort: server.port)
    defer { front.close() }
    let nodeA = try BrokerNode(url: RedisURL(host: "127.0.0.1", port: front.port), historyLimit: 3)
    let nodeB = try BrokerNode(url: server.url(), historyLimit: 3)
    defer { [nodeA, nodeB].forEach { $0.stop() } }
    let a = try nodeA.join("a")
    let b = try nodeB.join("b")
    for i in 1...10 { nodeB.publish(b, "m\(i)") }
    try await eventually("ten delivered to a") { a.messages.count == 10 }
    let log = RedisRoomKeys(room: "lobby").log
    let before = try #require(nodeA.hub.epoch(room: "lobby"))

    // A is cut off (its connections closed by Redis, the proxy holding that back and A's
    // reconnects too); B publishes five more, so the stream keeps 13…15; A comes back and
    // re-syncs after 10, which the stream no longer has.
    front.stall()
    try Self.killConnections(of: nodeA, on: server)
    let acked = Locked(0)
    for i in 11...15 { nodeB.publish(b, "m\(i)") { if case .success = $0 { acked.withLock { $0 += 1 } } } }
    try await eventually("five more acked") { acked.value == 5 }
    #expect(try server.cli("XRANGE", log, "-", "+", "COUNT", "1").contains("13-0"))
    front.resume()
    // A reconnect attempt made during the stall may wait out its connect timeout (30 s in
    // the tests) before the next one gets through: room for two attempts.
    try await eventually(timeout: .seconds(120), "A re-synced") { a.messages.count == 13 }
    #expect(a.messages.map(\.id) == Array(1...10) + [13, 14, 15])
    #expect(nodeA.broker.lostWriteEpochs == 0, "trimmed past is not lost")
    #expect(nodeA.hub.epoch(room: "lobby") == before)
    #expect(a.epochChanges.isEmpty)

    // The entry at 15 (A's newest) goes while 13 and 14 stay; A's connections are closed:
    // its re-sync finds the entry missing and the room starts a new epoch.
    #expect(try server.cli("XDEL", log, "15-0") == "1\n")
    try Self.killConnections(of: nodeA, on: server)
    try await eventually("a new epoch") {
      let epoch = try? server.cli("HGET", RedisRoomKeys(room: "lobby").meta, "epoch")
      return epoch.map { !$0.isEmpty && $0 != before + "\n" } ?? false
    }
    #expect(nodeA.broker.lostWriteEpochs == 1)
    nodeB.publish(b, "after")
    try await eventually("the new epoch's first message on A") { a.messages.last?.text == "after" }
    #expect(a.messages.last?.id == 1)
    #expect(a.epochChanges.count == 1)
  }

  /// Has Redis close every connection of `node` (named `switchboard-<node>`).
  private static func killConnections(of node: BrokerNode, on server: RedisServer) throws {
    let name = "name=switchboard-\(node.broker.configuration.nodeID) "
    let ids = try server.cli("CLIENT", "LIST").split(separator: "\n").filter { $0.contains(name) }.compactMap {
      $0.split(separator: " ").first { $0.hasPrefix("id=") }?.dropFirst(3)
    }
    #expect(ids.count >= 2, "the node's command and pub/sub connections")
    for id in ids { _ = try server.cli("CLIENT", "KILL", "ID", String(id)) }
  }

  @Test func aClusterMasterKilledMidStreamIsReplacedByItsReplicaAndNothingAckedIsDoubled() async throws {
    let cluster = try RedisCluster(replicas: 1, nodeTimeout: 1000)
    let room = try cluster.room(on: 0, prefix: "failing")
    let slot = RedisKeySlot.slot(of: RedisRoomKeys(room: room).meta)
    let settings = RedisClusterSettings(seeds: [cluster.url(2)], refreshInterval: .milliseconds(200))
    let writerNode = try BrokerNode(url: cluster.url(1), cluster: settings)
    let readerNode = try BrokerNode(url: cluster.url(2), cluster: settings)
    defer { [writerNode, readerNode].forEach { $0.stop() } }
    let writer = try writerNode.join("writer", room: room)
    let reader = try readerNode.join("reader", room: room)
    let first = try #require(readerNode.hub.epoch(room: room))
    /// Before the kill, until the replica serves the slot, and after.
    enum Phase { case before, failing, after }
    struct Ack { var id: UInt64, epoch: String, text: String }
    let phase = Locked(Phase.before)
    let acked = Locked<[Ack]>([])
    let failed = Locked(0)
    // One publish at a time, each after the last one's answer, until 30 went through after
    // the failover (at most 5,000).
    let publishing = Task {
      var afterwards = 0
      for i in 1...5000 where afterwards < 30 {
        let text = "m\(i)"
        let result = await withCheckedContinuation { continuation in
          writerNode.publish(writer, text) { continuation.resume(returning: $0) }
        }
        let now = phase.value
        switch result {
        case .success(let receipt):
          if now == .after { afterwards += 1 }
          acked.withLock { $0.append(Ack(id: receipt.id, epoch: receipt.epoch, text: text)) }
        case .failure: failed.withLock { $0 += 1 }
        }
      }
    }
    try await eventually(timeout: .seconds(60), "some published (\(failed.value) failed)") { acked.value.count >= 10 }
    cluster.kill(master: 0)
    phase.withLock { $0 = .failing }
    try await eventually(timeout: .seconds(30), "a replica serves the slot") {
      let owner = try? cluster.masterPort(ofSlot: slot, askingPort: cluster.ports[1])
      return owner.map { cluster.replicaPorts.contains($0) } ?? false
    }
    phase.withLock { $0 = .after }
    await publishing.value

    let acks = acked.value
    let lost = writerNode.broker.lostWriteEpochs + readerNode.broker.lostWriteEpochs
    // Which of the two documented outcomes this run saw: no acknowledged write lost (one
    // epoch), or writes lost with the old master and the room moved to a new epoch once.
    print(
      "cluster failover: \(acks.count) acked, \(failed.value) failed, \(lost) lost-write epoch change(s),",
      "epochs \(Set(acks.map(\.epoch)).count), reader saw \(reader.epochChanges.count) epoch change(s)")
    // A new epoch comes from the lost-write check (counted in `lost`) or from a master that
    // lacks the room altogether (the replica had not received it yet: "Redis lost the
    // room"); either way at most once, and never counted without a change.
    #expect(lost <= 1)
    #expect(reader.epochChanges.count <= 1)
    #expect(lost <= reader.epochChanges.count)
    // Within one epoch an id stands for one message: on both nodes, and in every ack.
    var texts: [String: String] = [:]
    var reused: [String] = []
    let epochs = [first] + reader.epochChanges
    for (member, groups) in [(writer, writer.messagesByEpoch), (reader, reader.messagesByEpoch)] {
      for (index, messages) in groups.enumerated() {
        #expect(
          messages.map(\.id) == (0..<messages.count).map { UInt64($0 + 1) },
          "\(member.name): once each, in order, no gap, in epoch \(index)")
        for message in messages {
          let key = "\(epochs[min(index, epochs.count - 1)]):\(message.id)"
          if let seen = texts[key], seen != message.text { reused.append(key) }
          texts[key] = message.text
        }
      }
    }
    for ack in acks {
      let key = "\(ack.epoch):\(ack.id)"
      if let seen = texts[key], seen != ack.text { reused.append(key) }
    }
    #expect(reused.isEmpty, "ids reused with another text: \(reused.prefix(5))")
    // Every acknowledged message of the epoch the room ends in reached the reader, once.
    let final = epochs.last!
    let finalAcks = acks.filter { $0.epoch == final }
    try await eventually("the reader has every acked message of the last epoch") {
      Set(reader.messagesByEpoch.last!.map(\.text)).isSuperset(of: finalAcks.map(\.text))
    }
    #expect(finalAcks.count >= 30)
    if reader.epochChanges.isEmpty {
      // Nothing was lost: every ack, before and after the failover, is in the one epoch.
      #expect(Set(acks.map(\.epoch)) == [first])
      #expect(Set(reader.messages.map(\.text)).isSuperset(of: acks.map(\.text)))
    }
  }
}
