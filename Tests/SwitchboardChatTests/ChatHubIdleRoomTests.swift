import SwitchboardChat
import SwitchboardTestSupport
import Testing

/// Rooms without a member on this node are dropped after ``HubConfiguration/roomIdleGrace``
/// (the broker told through ``RoomBroker/roomIdle(_:)``) and reopen on the next join. The
/// grace is waited out on a ``ManualHubTimer``: time moves only when the test says.
@Suite(.onTestThreads)
struct ChatHubIdleRoomTests {
  static let grace = Duration.seconds(30)

  static func manual(_ timer: ManualHubTimer) -> HubConfiguration {
    var configuration = HubConfiguration()
    configuration.roomIdleGrace = grace
    configuration.timer = timer
    return configuration
  }

  @Test(arguments: BrokerKind.allCases) func anEmptyRoomIsDroppedAndReopensInItsEpoch(_ kind: BrokerKind)
    async throws
  {
    let timer = ManualHubTimer()
    let hub = kind.makeHub(configuration: Self.manual(timer))
    let shard = hub.makeShard(executor: InlineExecutor())
    let ann = RecordingMember(hub.nextMemberID())
    try hub.joinNow(ann, shard: shard, name: "ann", room: "r", announce: true)
    for i in 1...3 { _ = try hub.publishNow(from: ann.memberID, text: "\(i)") }
    let epoch = try #require(hub.epoch(room: "r"))
    hub.leave(ann.memberID)
    #expect(timer.pendingCount == 1)
    timer.advance(by: Self.grace - .milliseconds(1))
    #expect(hub.epoch(room: "r") == epoch, "dropped before the grace ran out")
    timer.advance(by: .milliseconds(1))
    #expect(hub.epoch(room: "r") == nil, "not dropped when the grace ran out")
    #expect(hub.history(room: "r", last: 10).isEmpty, "the ring was kept")
    let bob = RecordingMember(hub.nextMemberID())
    let result = try hub.joinNow(bob, shard: shard, name: "bob", room: "r", announce: true, historyCount: 10)
    #expect(result.epoch == epoch)
    #expect(result.lastID == 3)
    #expect(result.history.map(\.text) == ["1", "2", "3"])
    #expect(try hub.publishNow(from: bob.memberID, text: "4") == 4)
  }

  @Test func aRoomRejoinedWithinTheGraceStaysAndIdlesOnceWhenLeftForGood() throws {
    let broker = ScriptedBroker()
    let timer = ManualHubTimer()
    let hub = ChatHub(configuration: Self.manual(timer), broker: broker)
    let shard = hub.makeShard(executor: InlineExecutor())
    let ann = RecordingMember(hub.nextMemberID())
    hub.join(ann, shard: shard, name: "ann", room: "r", announce: true)
    broker.answerOpen(.success(RoomSnapshot(lastID: 0, epoch: "e1", recent: [])))
    hub.leave(ann.memberID)
    let bob = RecordingMember(hub.nextMemberID())
    try hub.joinNow(bob, shard: shard, name: "bob", room: "r", announce: true)
    // Bob stays for two graces, publishing: the check ann's leave queued finds him there.
    var ids: [UInt64?] = []
    for step in 1...4 {
      timer.advance(by: Self.grace / 2)
      ids.append(try hub.publishNow(from: bob.memberID, text: "\(step)"))
    }
    #expect(ids == [1, 2, 3, 4], "the room was dropped while bob was in it")
    #expect(timer.pendingCount == 0, "the check of ann's leave did not run")
    #expect(broker.state.withLock { $0.idle }.isEmpty)
    #expect(bob.messages.count == 4)
    hub.leave(bob.memberID)
    timer.advance(by: Self.grace)
    #expect(broker.state.withLock { $0.idle } == ["r"])
    #expect(hub.epoch(room: "r") == nil)
    #expect(hub.rooms().isEmpty)
    timer.advance(by: Self.grace * 4)
    #expect(broker.state.withLock { $0.idle } == ["r"], "told idle more than once")
  }
}
