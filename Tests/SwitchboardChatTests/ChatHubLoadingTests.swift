import SwitchboardChat
import SwitchboardTestSupport
import SwitchboardWire
import Synchronization
import Testing

/// The hub in front of a broker that answers later: a room loading, messages from other
/// nodes, presence and history through the broker.
@Suite(.onTestThreads)
struct ChatHubLoadingTests {
  @Test func aJoinWhileLoadingCompletesLaterAndQueuedMessagesKeepTheirOrder() throws {
    let loader = ManualExecutor()
    let broker = LocalRoomBroker(retention: 100, loader: loader)
    let hub = ChatHub(broker: broker)
    let shard = hub.makeShard(executor: InlineExecutor())
    let a = RecordingMember(hub.nextMemberID())
    let b = RecordingMember(hub.nextMemberID())
    let joined = Locked<[String]>([])
    hub.join(a, shard: shard, name: "a", room: "r", announce: true) { r in
      joined.withLock { $0.append("a \(r.lastID) \(r.history.count)") }
    }
    #expect(joined.value.isEmpty, "the room is loading: the join waits")
    let receipts = Locked<[UInt64]>([])
    for text in ["1", "2"] {
      #expect(
        hub.publish(from: a.memberID, text: text) { r in receipts.withLock { $0.append(try! r.get().id) } })
    }
    hub.join(b, shard: shard, name: "b", room: "r", announce: true) { r in
      joined.withLock { $0.append("b \(r.lastID) \(r.history.count)") }
    }
    #expect(a.events.isEmpty && b.events.isEmpty)
    #expect(hub.who(room: "r") == ["a", "b"], "members waiting for the room count as there")
    #expect(loader.pending == 1, "one load per room, however many wait for it")
    loader.runAll()
    #expect(joined.value == ["a 0 0", "b 0 0"])
    #expect(a.messages.map(\.text) == ["1", "2"])
    #expect(a.messages.map(\.id) == [1, 2])
    #expect(b.messages.map(\.id) == [1, 2])
    #expect(receipts.value == [1, 2])
    #expect(presenceLog(a) == ["join a", "join b"])
    #expect(hub.who(room: "r") == ["a", "b"])
    // Open now: the next publish goes straight through.
    #expect(try hub.publishNow(from: b.memberID, text: "3") == 3)
  }

  @Test func aMemberThatLeavesWhileItsRoomLoadsIsNeverAdmitted() throws {
    let loader = ManualExecutor()
    let hub = ChatHub(broker: LocalRoomBroker(retention: 10, loader: loader))
    let shard = hub.makeShard(executor: InlineExecutor())
    let gone = RecordingMember(hub.nextMemberID())
    let completed = Locked(false)
    hub.join(gone, shard: shard, name: "g", room: "r", announce: true) { _ in completed.withLock { $0 = true }
    }
    hub.leave(gone.memberID)
    loader.runAll()
    #expect(!completed.value)
    #expect(hub.counts.members == 0)
    #expect(hub.who(room: "r").isEmpty)
  }

  @Test func publishesBeyondTheQueueLimitFailBusyWhileLoading() throws {
    var config = HubConfiguration()
    config.maxQueuedWhileLoading = 3
    let loader = ManualExecutor()
    let failures = Locked<[String]>([])
    let hub = ChatHub(
      configuration: config, broker: LocalRoomBroker(retention: 10, loader: loader),
      onPublishFailure: { room, _, error in failures.withLock { $0.append("\(room): \(error)") } })
    let shard = hub.makeShard(executor: InlineExecutor())
    let a = RecordingMember(hub.nextMemberID())
    hub.join(a, shard: shard, name: "a", room: "r", announce: true)
    let answers = Locked<[String]>([])
    for i in 1...5 {
      hub.publish(from: a.memberID, text: "\(i)") { r in
        answers.withLock { $0.append((try? r.get()).map { "\($0.id)" } ?? "busy") }
      }
    }
    #expect(answers.value == ["busy", "busy"])
    #expect(failures.value.count == 2)
    loader.runAll()
    #expect(a.messages.map(\.text) == ["1", "2", "3"])
    #expect(answers.value == ["busy", "busy", "1", "2", "3"])
  }

  @Test func aStoreThatFailsGivesAFreshEpochAndNotStoredAnswersButDeliveryGoesOn() throws {
    let failures = Locked<[UInt64?]>([])
    let hub = ChatHub(
      broker: LocalRoomBroker(store: FailingStore(), loader: InlineExecutor()),
      onPublishFailure: { _, id, _ in failures.withLock { $0.append(id) } })
    let shard = hub.makeShard(executor: InlineExecutor())
    let a = RecordingMember(hub.nextMemberID())
    let joined = try hub.joinNow(a, shard: shard, name: "a", room: "r", announce: true)
    #expect(joined.lastID == 0)
    #expect(joined.epoch.count == 16)
    #expect(throws: BrokerError.self) { try hub.publishNow(from: a.memberID, text: "lost") }
    let answer = Locked<BrokerError?>(nil)
    hub.publish(from: a.memberID, text: "again") { r in
      if case .failure(let e) = r { answer.withLock { $0 = e } }
    }
    #expect(answer.value?.isNotStored == true)
    #expect(answer.value?.messageID == 2)
    #expect(failures.value == [1, 2])
    #expect(a.messages.map(\.text) == ["lost", "again"])
  }

  @Test func brokerDeliveriesBeforeTheSnapshotAreNotDuplicated() throws {
    let broker = ScriptedBroker()
    let hub = ChatHub(broker: broker)
    let shard = hub.makeShard(executor: InlineExecutor())
    let a = RecordingMember(hub.nextMemberID())
    let joined = Locked<JoinResult?>(nil)
    hub.join(a, shard: shard, name: "a", room: "r", announce: true, historyCount: 10) { r in
      joined.withLock { $0 = r }
    }
    func remote(_ id: UInt64) -> ChatMessage {
      ChatMessage(id: id, room: "r", time: 0, author: "far", color: "red", text: "m\(id)")
    }
    // Another node's messages 5 and 6 arrive while the snapshot (which has 5) is on its way.
    broker.deliverRemote(remote(5), epoch: "e1")
    broker.deliverRemote(remote(6), epoch: "e1")
    broker.answerOpen(.success(RoomSnapshot(lastID: 5, epoch: "e1", recent: [remote(4), remote(5)])))
    #expect(joined.value?.history.map(\.id) == [4, 5])
    #expect(a.messages.map(\.id) == [6])
    broker.deliverRemote(remote(6), epoch: "e1")
    #expect(a.messages.map(\.id) == [6], "a replayed id is delivered once")
    // The cluster lost the room: a new epoch starts the ring afresh.
    broker.deliverRemote(remote(1), epoch: "e2")
    #expect(a.messages.map(\.id) == [6, 1])
    #expect(hub.epoch(room: "r") == "e2")
    #expect(hub.history(room: "r", last: 10).map(\.id) == [1])
  }

  @Test func presenceAndWhoGoThroughTheBroker() throws {
    let broker = ScriptedBroker()
    broker.state.withLock { $0.remote = ["zed", "bea"] }
    let hub = ChatHub(broker: broker)
    let shard = hub.makeShard(executor: InlineExecutor())
    let a = RecordingMember(hub.nextMemberID())
    hub.join(a, shard: shard, name: "a", room: "r", announce: false)
    broker.answerOpen(.success(RoomSnapshot(lastID: 0, epoch: "e1", recent: [])))
    hub.announce(a.memberID)
    hub.rename(a.memberID, to: "ann")
    hub.leave(a.memberID)
    #expect(broker.state.withLock { $0.presence } == ["join a", "rename(from: \"a\") ann", "leave ann"])
    let b = RecordingMember(hub.nextMemberID())
    try hub.joinNow(b, shard: shard, name: "b", room: "r", announce: true)
    let names = Locked<[String]>([])
    hub.who(room: "r", shard: shard) { n in names.withLock { $0 = n } }
    #expect(names.value == ["b", "bea", "zed"])
  }

  @Test func sinceOlderThanTheRingAsksTheBroker() throws {
    var config = HubConfiguration()
    config.historyLimit = 3
    let broker = ScriptedBroker()
    let hub = ChatHub(configuration: config, broker: broker)
    let shard = hub.makeShard(executor: InlineExecutor())
    let a = RecordingMember(hub.nextMemberID())
    hub.join(a, shard: shard, name: "a", room: "r", announce: true)
    broker.answerOpen(.success(RoomSnapshot(lastID: 0, epoch: "e1", recent: [])))
    for i in 1...6 { hub.publish(from: a.memberID, text: "\(i)") }
    let got = Locked<[UInt64]>([])
    hub.history(room: "r", after: 4, shard: shard) { r in
      got.withLock { $0 = (try? r.get())?.map(\.id) ?? [] }
    }
    #expect(got.value == [5, 6])
    #expect(broker.state.withLock { $0.historyAsked }.isEmpty, "the ring covers it")
    hub.history(room: "r", after: 1, shard: shard) { r in
      got.withLock { $0 = (try? r.get())?.map(\.id) ?? [] }
    }
    #expect(got.value == [2, 3, 4], "at most historyLimit, oldest first")
    #expect(broker.state.withLock { $0.historyAsked } == [1])
  }
}
