import SwitchboardChat
import SwitchboardTestSupport
import Testing

/// Rooms without a member on this node are dropped after ``HubConfiguration/roomIdleGrace``
/// (the broker told through ``RoomBroker/roomIdle(_:)``) and reopen on the next join.
@Suite(.onTestThreads)
struct ChatHubIdleRoomTests {
  static func quick() -> HubConfiguration {
    var configuration = HubConfiguration()
    configuration.roomIdleGrace = .milliseconds(100)
    return configuration
  }

  @Test(arguments: BrokerKind.allCases) func anEmptyRoomIsDroppedAndReopensInItsEpoch(_ kind: BrokerKind)
    async throws
  {
    let hub = kind.makeHub(configuration: Self.quick())
    let shard = hub.makeShard(executor: InlineExecutor())
    let ann = RecordingMember(hub.nextMemberID())
    try hub.joinNow(ann, shard: shard, name: "ann", room: "r", announce: true)
    for i in 1...3 { _ = try hub.publishNow(from: ann.memberID, text: "\(i)") }
    let epoch = try #require(hub.epoch(room: "r"))
    hub.leave(ann.memberID)
    try await eventually("the room is dropped") { hub.epoch(room: "r") == nil }
    #expect(hub.history(room: "r", last: 10).isEmpty, "the ring was kept")
    let bob = RecordingMember(hub.nextMemberID())
    let result = try hub.joinNow(bob, shard: shard, name: "bob", room: "r", announce: true, historyCount: 10)
    #expect(result.epoch == epoch)
    #expect(result.lastID == 3)
    #expect(result.history.map(\.text) == ["1", "2", "3"])
    #expect(try hub.publishNow(from: bob.memberID, text: "4") == 4)
  }

  @Test func aRoomRejoinedWithinTheGraceStaysAndIdlesOnceWhenLeftForGood() async throws {
    let broker = ScriptedBroker()
    let hub = ChatHub(configuration: Self.quick(), broker: broker)
    let shard = hub.makeShard(executor: InlineExecutor())
    let ann = RecordingMember(hub.nextMemberID())
    hub.join(ann, shard: shard, name: "ann", room: "r", announce: true)
    broker.answerOpen(.success(RoomSnapshot(lastID: 0, epoch: "e1", recent: [])))
    hub.leave(ann.memberID)
    let bob = RecordingMember(hub.nextMemberID())
    try hub.joinNow(bob, shard: shard, name: "bob", room: "r", announce: true)
    // Bob stays for two graces, publishing: the check ann's leave queued finds him there.
    let started = ContinuousClock.now
    var sent = 0
    var ids: [UInt64?] = []
    try await eventually("bob published for two graces") {
      sent += 1
      ids.append(try hub.publishNow(from: bob.memberID, text: "\(sent)"))
      return ContinuousClock.now - started >= .milliseconds(250)
    }
    #expect(ids == (1...sent).map { UInt64($0) }, "the room was dropped while bob was in it")
    #expect(broker.state.withLock { $0.idle }.isEmpty)
    #expect(bob.messages.count == sent)
    hub.leave(bob.memberID)
    try await eventually("the broker hears the room is idle") { broker.state.withLock { $0.idle } == ["r"] }
    #expect(hub.epoch(room: "r") == nil)
    #expect(hub.rooms().isEmpty)
  }
}
