import SwitchboardChat
import SwitchboardTestSupport
import SwitchboardWire
import Synchronization
import Testing

/// A client's `ref` as idempotency key with the local broker: a message re-sent with the
/// same ref by the same sender is kept and delivered once and acknowledged with its id.
@Suite(.onTestThreads)
struct ChatHubClientRefTests {
  @Test(arguments: BrokerKind.allCases) func aRetriedRefGetsTheFirstIDAndIsDeliveredOnce(_ kind: BrokerKind)
    throws
  {
    let hub = kind.makeHub()
    let shard = hub.makeShard(executor: InlineExecutor())
    let ann = RecordingMember(hub.nextMemberID())
    let watcher = RecordingMember(hub.nextMemberID())
    try hub.joinNow(ann, shard: shard, name: "ann", room: "r", announce: true)
    try hub.joinNow(watcher, shard: shard, name: "w", room: "r", announce: true)
    let first = try hub.publishNow(from: ann.memberID, text: "hi", ref: #""c1""#)
    #expect(first == 1)
    // The same sender (a new connection: another member, same name) sends again.
    hub.leave(ann.memberID)
    let again = RecordingMember(hub.nextMemberID())
    try hub.joinNow(again, shard: shard, name: "ann", room: "r", announce: true)
    #expect(try hub.publishNow(from: again.memberID, text: "hi", ref: #""c1""#) == 1)
    #expect(watcher.messages.map(\.text) == ["hi"])
    #expect(again.messages.isEmpty)
    // Another text, another sender or no ref: new messages.
    #expect(try hub.publishNow(from: again.memberID, text: "other", ref: #""c1""#) == 2)
    #expect(try hub.publishNow(from: watcher.memberID, text: "hi", ref: #""c1""#) == 3)
    #expect(try hub.publishNow(from: again.memberID, text: "hi") == 4)
    #expect(watcher.messages.map(\.id) == [1, 2, 3, 4])
  }

  @Test func aRetryWhileTheOldConnectionLingersIsTheSameSender() throws {
    let hub = BrokerKind.localInline.makeHub()
    let shard = hub.makeShard(executor: InlineExecutor())
    let old = RecordingMember(hub.nextMemberID())
    let new = RecordingMember(hub.nextMemberID())
    try hub.joinNow(old, shard: shard, name: "ann", room: "r", announce: true)
    #expect(try hub.publishNow(from: old.memberID, text: "hi", ref: "1") == 1)
    // The client reconnected before the server noticed the old connection was gone.
    try hub.joinNow(new, shard: shard, name: "ann", room: "r", announce: true)
    #expect(hub.member(new.memberID)?.name == "ann (2)")
    #expect(try hub.publishNow(from: new.memberID, text: "hi", ref: "1") == 1)
    #expect(old.messages.map(\.id) == [1])
  }

  @Test func withATokenTheSubjectScopesTheRefNotTheName() throws {
    let hub = BrokerKind.localInline.makeHub()
    let shard = hub.makeShard(executor: InlineExecutor())
    let a = RecordingMember(hub.nextMemberID())
    let b = RecordingMember(hub.nextMemberID())
    try hub.joinNow(a, shard: shard, name: "ann", room: "r", announce: true)
    try hub.joinNow(b, shard: shard, name: "ann (phone)", room: "r", announce: true)
    #expect(try hub.publishNow(from: a.memberID, text: "x", ref: "7", subject: "user-1") == 1)
    // Same subject under another name: the same sender.
    #expect(try hub.publishNow(from: b.memberID, text: "x", ref: "7", subject: "user-1") == 1)
    // Same name, another subject: someone else.
    #expect(try hub.publishNow(from: a.memberID, text: "x", ref: "7", subject: "user-2") == 2)
  }

  @Test(arguments: BrokerKind.allCases)
  func withoutATokenAStrangerElsewhereAskingForTheNameCannotClaimTheRef(_ kind: BrokerKind) throws {
    let hub = kind.makeHub()
    let shard = hub.makeShard(executor: InlineExecutor())
    let mallory = RecordingMember(hub.nextMemberID())
    let watcher = RecordingMember(hub.nextMemberID())
    try hub.joinNow(watcher, shard: shard, name: "w", room: "r", announce: true)
    try hub.joinNow(mallory, shard: shard, name: "alice", room: "r", announce: true)
    // Mallory guesses Alice's next ref and text and sends them first, from her own address.
    #expect(try hub.publishNow(from: mallory.memberID, text: "yes", ref: #""c5""#, address: "192.0.2.66") == 1)
    hub.leave(mallory.memberID)
    let alice = RecordingMember(hub.nextMemberID())
    try hub.joinNow(alice, shard: shard, name: "alice", room: "r", announce: true)
    // Alice's message is hers: kept and delivered under a new id.
    #expect(try hub.publishNow(from: alice.memberID, text: "yes", ref: #""c5""#, address: "192.0.2.10") == 2)
    // Alice's own re-send after a reconnect (same name, same address) is still a repeat.
    hub.leave(alice.memberID)
    let back = RecordingMember(hub.nextMemberID())
    try hub.joinNow(back, shard: shard, name: "alice", room: "r", announce: true)
    #expect(try hub.publishNow(from: back.memberID, text: "yes", ref: #""c5""#, address: "192.0.2.10") == 2)
    #expect(watcher.messages.map(\.id) == [1, 2])
  }

  @Test func aRetryBeforeTheFirstIsKeptWaitsForTheStoreAndSharesItsFailure() throws {
    let store = HeldStore()
    let hub = ChatHub(broker: LocalRoomBroker(store: store, loader: InlineExecutor()))
    let shard = hub.makeShard(executor: InlineExecutor())
    let ann = RecordingMember(hub.nextMemberID())
    try hub.joinNow(ann, shard: shard, name: "ann", room: "r", announce: true)
    let answers = Locked<[Result<PublishReceipt, BrokerError>]>([])
    for _ in 0..<2 {
      hub.publish(from: ann.memberID, text: "hi", ref: "1") { result in answers.withLock { $0.append(result) }
      }
    }
    #expect(ann.messages.map(\.id) == [1])
    #expect(answers.value.isEmpty, "acked before the store kept it")
    store.release(.success(()))
    #expect(answers.value.compactMap { try? $0.get().id } == [1, 1])

    // A first publish the store fails: its retry fails too, and the key is forgotten, so
    // the next retry is kept anew.
    for _ in 0..<2 {
      hub.publish(from: ann.memberID, text: "lost", ref: "2") { result in
        answers.withLock { $0.append(result) }
      }
    }
    store.release(.failure(StoreError("disk full")))
    #expect(answers.value.dropFirst(2).allSatisfy { (try? $0.get()) == nil })
    hub.publish(from: ann.memberID, text: "lost", ref: "2") { result in answers.withLock { $0.append(result) }
    }
    store.release(.success(()))
    #expect(try answers.value.last?.get().id == 3)
  }
}

/// A store that holds every append's completion until the test releases them.
final class HeldStore: HistoryStore {
  private let held = Mutex<[@Sendable (Result<Void, StoreError>) -> Void]>([])
  func loadRoom(_ room: String, limit: Int) throws(StoreError) -> RoomSnapshot {
    RoomSnapshot(lastID: 0, epoch: "e", recent: [])
  }
  func append(_ message: ChatMessage, completion: (@Sendable (Result<Void, StoreError>) -> Void)?) {
    if let completion { held.withLock { $0.append(completion) } }
  }
  func messages(room: String, after id: UInt64, limit: Int) throws(StoreError) -> [ChatMessage] { [] }
  func close() {}
  /// Answers every held append with `result`.
  func release(_ result: Result<Void, StoreError>) {
    let now = held.withLock { h in
      defer { h.removeAll() }
      return h
    }
    for completion in now { completion(result) }
  }
}
