import Dispatch
import SwitchboardChat
import SwitchboardIO
import SwitchboardLog
import SwitchboardRESP
import SwitchboardTestSupport
import SwitchboardWire
import Testing

@testable import SwitchboardRedis

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The Redis broker against a real `redis-server`: three nodes (a ``ChatHub`` and its own
/// ``RedisRoomBroker`` each) sharing one Redis, members on every node.
@Suite(.onTestThreads, .enabled(ifAvailable: RedisServer.isInstalled, "redis-server is not installed"))
struct RedisRoomBrokerTests {
  @Test func everyMemberOnEveryNodeSeesEveryMessageOnceInOneOrder() async throws {
    let server = try RedisServer()
    let nodes = try (0..<3).map { _ in try BrokerNode(server) }
    defer { nodes.forEach { $0.stop() } }
    let members = try nodes.enumerated().flatMap { index, node in
      try (0..<2).map { try node.join("n\(index)m\($0)") }
    }
    // Everybody publishes at once, from every node.
    let acks = Locked<[UInt64]>([])
    for round in 0..<30 {
      for (index, member) in members.enumerated() {
        member.node.publish(member, "\(index)-\(round)") { result in
          if case .success(let receipt) = result { acks.withLock { $0.append(receipt.id) } }
        }
      }
    }
    let total = 30 * members.count
    try await eventually("every ack") { acks.value.count == total }
    #expect(Set(acks.value) == Set(1...UInt64(total)))
    try await eventually("every delivery") { members.allSatisfy { $0.messages.count == total } }
    let reference = members[0].messages
    #expect(reference.map(\.id) == Array(1...UInt64(total)))
    for member in members {
      #expect(member.messages == reference, "\(member.name) saw another order")
    }
    // Nothing arrives twice later either.
    try await Task.sleep(for: .milliseconds(200))
    #expect(members.allSatisfy { $0.messages.count == total })
  }

  @Test func whoListsTheMembersOfEveryNodeAndADeadNodesAgeOut() async throws {
    let server = try RedisServer()
    let nodes = try (0..<3).map { _ in
      try BrokerNode(server, presenceRefresh: .milliseconds(200), presenceLifetime: .milliseconds(800))
    }
    defer { nodes.forEach { $0.stop() } }
    _ = try nodes[0].join("ann")
    _ = try nodes[1].join("bob")
    _ = try nodes[2].join("cat")
    try await eventually("all three everywhere") {
      nodes.allSatisfy { $0.who() == ["ann", "bob", "cat"] }
    }
    // A node that stops refreshing (its process died): its member ages out within the lifetime.
    nodes[2].freezePresence()
    let started = ContinuousClock.now
    try await eventually("cat gone") { nodes[0].who() == ["ann", "bob"] }
    #expect(ContinuousClock.now - started < .seconds(5))
  }

  @Test func aMemberResumingOnAnotherNodeGetsWhatItMissed() async throws {
    let server = try RedisServer()
    let nodes = try (0..<2).map { _ in try BrokerNode(server) }
    defer { nodes.forEach { $0.stop() } }
    let writer = try nodes[0].join("writer")
    let reader = try nodes[1].join("reader")
    for i in 1...10 { writer.node.publish(writer, "before \(i)") }
    try await eventually("reader has ten") { reader.messages.count == 10 }
    let seen = reader.messages.last!.id
    let epoch = try #require(nodes[1].hub.epoch(room: "lobby"))
    nodes[1].stop()  // the reader's node is gone
    for i in 1...15 { writer.node.publish(writer, "after \(i)") }
    try await eventually("writer has 25") { writer.messages.count == 25 }
    // The reader resumes on a third node, from what it saw.
    let third = try BrokerNode(server)
    defer { third.stop() }
    let resumed = try third.join("reader", since: seen, epoch: epoch)
    let result = try #require(resumed.joinResult)
    #expect(result.epoch == epoch)
    #expect(result.history.map(\.text) == (1...15).map { "after \($0)" })
    #expect(result.history.map(\.id) == Array(11...25))
  }

  @Test func aRedisRestartStartsANewEpochAndDeliveryGoesOn() async throws {
    let server = try RedisServer()
    let nodes = try (0..<2).map { _ in try BrokerNode(server) }
    defer { nodes.forEach { $0.stop() } }
    let a = try nodes[0].join("a")
    let b = try nodes[1].join("b")
    for i in 1...5 { a.node.publish(a, "one \(i)") }
    try await eventually { b.messages.count == 5 }
    let before = nodes[1].hub.epoch(room: "lobby")
    try server.restart()  // no persistence: Redis lost the room
    // Publishes wait for the connection (or are retried with their ref) and then go through.
    let acked = Locked(0)
    for i in 1...5 {
      a.node.publish(a, "two \(i)") { if case .success = $0 { acked.withLock { $0 += 1 } } }
    }
    try await eventually(timeout: .seconds(20), "acks after the restart") { acked.value == 5 }
    try await eventually("b sees the new epoch's messages") {
      b.messages.filter { $0.text.hasPrefix("two") }.count == 5
    }
    #expect(nodes[1].hub.epoch(room: "lobby") != before)
    #expect(b.messages.filter { $0.text.hasPrefix("two") }.map(\.id) == Array(1...5))
  }

  @Test func anUnreachableRedisFailsAtConnect() throws {
    let nobody = try RefusingPort()
    let port = nobody.port
    let url = RedisURL(host: "127.0.0.1", port: port, user: nil, password: nil, database: 0, tls: false)
    #expect(throws: RedisError.self) {
      _ = try RedisRoomBroker.connect(configuration: RedisBrokerConfiguration(redis: .test(url)))
    }
  }
}

/// One node: a hub, its Redis broker and one shard on a serial queue.
final class BrokerNode: Sendable {
  let hub: ChatHub
  let broker: RedisRoomBroker
  let shard: HubShard
  let queue: DispatchQueue
  private let frozen = Locked(false)

  convenience init(
    _ server: RedisServer, presenceRefresh: Duration = .seconds(5), presenceLifetime: Duration = .seconds(15),
    hub configuration: HubConfiguration = HubConfiguration()
  ) throws {
    try self.init(
      url: server.url(), presenceRefresh: presenceRefresh, presenceLifetime: presenceLifetime, hub: configuration)
  }

  /// A node on the Redis (or Redis Cluster) at `url`.
  init(
    url: RedisURL, presenceRefresh: Duration = .seconds(5), presenceLifetime: Duration = .seconds(15),
    probeInterval: Duration = .seconds(5), probeTimeout: Duration = .seconds(3), logger: Log = .disabled,
    cluster: RedisClusterSettings = RedisClusterSettings(), historyLimit: Int = 1000,
    commandTimeout: Duration = .seconds(3), hub hubConfiguration: HubConfiguration = HubConfiguration()
  ) throws {
    var configuration = RedisBrokerConfiguration(
      redis: .test(url, commandTimeout: commandTimeout), historyLimit: historyLimit,
      presenceRefresh: presenceRefresh, presenceLifetime: presenceLifetime, probeInterval: probeInterval,
      probeTimeout: probeTimeout, logger: logger)
    configuration.cluster = cluster
    configuration.redis.logger = logger
    // A publish is retried within this; a longer command deadline asks for as long a wait.
    configuration.publishTimeout = max(configuration.publishTimeout, commandTimeout)
    broker = try RedisRoomBroker.connect(configuration: configuration)
    hub = ChatHub(configuration: hubConfiguration, broker: broker)
    queue = DispatchQueue(label: "test.shard")
    shard = hub.makeShard(executor: QueueExecutor(queue: queue))
  }

  /// Joins `room` as `name` and waits for the join to complete.
  func join(_ name: String, room: String = "lobby", since: UInt64? = nil, epoch: String? = nil) throws
    -> RecordingMember
  {
    let member = RecordingMember(node: self, id: hub.nextMemberID(), name: name)
    let joined = DispatchSemaphore(value: 0)
    queue.sync {
      hub.join(
        member, shard: shard, name: name, room: room, announce: true, since: since, epoch: epoch,
        historyCount: since == nil ? 0 : 1000
      ) { result in
        member.joined(result)
        joined.signal()
      }
    }
    guard joined.wait(timeout: .now() + 15) == .success else {
      throw TestFailure("join of \(name) timed out")
    }
    return member
  }

  func publish(
    _ member: RecordingMember, _ text: String, ref: String? = nil,
    completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)? = nil
  ) {
    queue.async { [hub] in _ = hub.publish(from: member.id, text: text, ref: ref, completion: completion) }
  }

  /// `/who` of `room` on this node: every node's members.
  func who(room: String = "lobby") -> [String] {
    let answer = Locked<[String]?>(nil)
    let done = DispatchSemaphore(value: 0)
    queue.async { [hub, shard] in
      hub.who(room: room, shard: shard) { names in
        answer.withLock { $0 = names }
        done.signal()
      }
    }
    _ = done.wait(timeout: .now() + 10)
    return answer.value ?? []
  }

  /// Stops refreshing presence, as a killed process would (the broker's connections close).
  func freezePresence() {
    frozen.withLock { $0 = true }
    stopBroker()
  }

  func stop() {
    stopBroker()
  }

  private let stopped = Locked(false)
  private func stopBroker() {
    guard
      !stopped.withLock({ was in
        defer { was = true }
        return was
      })
    else { return }
    if frozen.value {
      broker.closeWithoutGoodbye()
    } else {
      broker.close()
    }
  }
}

/// A member that records what it receives.
final class RecordingMember: LocalMember, @unchecked Sendable {
  let node: BrokerNode
  let id: MemberID
  let name: String
  private let received = Locked<[ChatMessage]>([])
  /// What arrived, split where the hub told the member of a new epoch.
  private let epochs = Locked<[(epoch: String?, messages: [ChatMessage])]>([(nil, [])])
  private let presence = Locked<[PresenceEvent]>([])
  private let result = Locked<JoinResult?>(nil)

  init(node: BrokerNode, id: MemberID, name: String) {
    self.node = node
    self.id = id
    self.name = name
  }

  var memberID: MemberID { id }
  var messages: [ChatMessage] { received.value }
  /// The join, leave and rename lines it was shown.
  var presenceEvents: [PresenceEvent] { presence.value }
  var joinResult: JoinResult? { result.value }
  /// The epochs the hub announced (`ChatEvent.epochChanged`), in order.
  var epochChanges: [String] { epochs.value.dropFirst().compactMap(\.epoch) }
  /// The messages of each epoch: those before the first announced change first.
  var messagesByEpoch: [[ChatMessage]] { epochs.value.map(\.messages) }

  func joined(_ value: JoinResult) { result.withLock { $0 = value } }

  func receive(_ event: ChatEvent, cache: inout EncodingCache) {
    switch event {
    case .message(let message, _):
      received.withLock { $0.append(message) }
      epochs.withLock { $0[$0.count - 1].messages.append(message) }
    case .epochChanged(_, let epoch): epochs.withLock { $0.append((epoch, [])) }
    case .presence(let event, _): presence.withLock { $0.append(event) }
    default: break
    }
  }
}

/// Runs shard work on a serial dispatch queue.
struct QueueExecutor: ShardExecutor {
  let queue: DispatchQueue
  func execute(_ task: @escaping @Sendable () -> Void) { queue.async(execute: task) }
}
