import SwitchboardChat
import SwitchboardTestSupport
import SwitchboardWire
import Synchronization
import Testing

/// The local broker's fast path: a draft carrying the room's handle from
/// the snapshot (``MessageDraft/brokerRoom``) skips the room table, and an in-memory store
/// keeps messages through a per-room appender instead of `append(_:completion:)`. Both
/// must give what the general path gives: the same ids, deliveries, history and answers.
@Suite(.onTestThreads)
struct LocalRoomBrokerRoomHandleTests {
  /// Records every delivery and failure as text.
  final class RecordingSink: RoomBrokerSink {
    let log = Mutex<[String]>([])

    func deliver(_ message: ChatMessage, epoch: String, origin: MemberID?) {
      log.withLock { $0.append("\(message.room)#\(message.id) \(message.author): \(message.text)") }
    }
    func keepFailed(room: String, id: UInt64?, error: BrokerError) {
      log.withLock { $0.append("failed \(room) \(id.map(String.init) ?? "-"): \(error)") }
    }
  }

  /// An in-memory store seen only through the protocol's general methods (no appender),
  /// as a store that writes to disk is.
  final class GeneralStore: HistoryStore {
    let inner = InMemoryHistoryStore(retention: 100)
    func loadRoom(_ room: String, limit: Int) throws(StoreError) -> RoomSnapshot {
      try inner.loadRoom(room, limit: limit)
    }
    func append(_ message: ChatMessage, completion: (@Sendable (Result<Void, StoreError>) -> Void)?) {
      inner.append(message, completion: completion)
    }
    func messages(room: String, after id: UInt64, limit: Int) throws(StoreError) -> [ChatMessage] {
      try inner.messages(room: room, after: id, limit: limit)
    }
    func close() {}
  }

  struct Run {
    let broker: LocalRoomBroker
    let sink = RecordingSink()
    var handles: [String: BrokerRoomHandle] = [:]

    init(store: any HistoryStore) {
      broker = LocalRoomBroker(store: store, loader: InlineExecutor())
      broker.attach(sink)
      for room in ["a", "b"] {
        let snapshot = Mutex<RoomSnapshot?>(nil)
        broker.openRoom(room, recent: 0, on: InlineExecutor()) { result in
          snapshot.withLock { $0 = try? result.get() }
        }
        handles[room] = snapshot.withLock { $0 }?.brokerRoom
      }
    }

    /// Publishes the script's messages (with or without the handles), returning the answers.
    func publish(_ script: [(room: String, text: String, ref: String?)], withHandles: Bool) -> [String] {
      let answers = Mutex<[String]>([])
      for (n, step) in script.enumerated() {
        let message = ChatMessage(
          id: 0, room: step.room, time: 0, author: "u\(n % 3)", color: "red", text: step.text)
        let key = step.ref.map {
          MessageDraft.clientKey(ref: $0, subject: "s", name: message.author, text: step.text)
        }
        let draft = MessageDraft(
          message, clientKey: key, brokerRoom: withHandles ? handles[step.room] : nil)
        broker.publish(draft, on: InlineExecutor()) { result in
          answers.withLock {
            $0.append("\(n): " + ((try? result.get()).map { "id \($0.id)" } ?? "\(result)"))
          }
        }
      }
      return answers.withLock { $0 }
    }
  }

  static let script: [(room: String, text: String, ref: String?)] = [
    ("a", "one", nil), ("b", "two", "c1"), ("a", "three", "c1"), ("a", "three", "c1"), ("b", "four", nil),
    ("b", "two", "c1"), ("a", "five", "c2"),
  ]

  @Test(arguments: [false, true])
  func publishingWithTheSnapshotsHandleMatchesPublishingByName(generalStore: Bool) throws {
    func run(withHandles: Bool) throws -> (answers: [String], log: [String], kept: [[ChatMessage]]) {
      let store: any HistoryStore = generalStore ? GeneralStore() : InMemoryHistoryStore(retention: 100)
      let run = Run(store: store)
      #expect(run.handles.count == 2, "the local broker hands out a handle per room")
      let answers = run.publish(Self.script, withHandles: withHandles)
      let kept = try ["a", "b"].map { try store.messages(room: $0, after: 0, limit: 100) }
      run.broker.close()
      return (answers, run.sink.log.withLock { $0 }, kept)
    }
    let byName = try run(withHandles: false)
    let byHandle = try run(withHandles: true)
    #expect(byHandle.answers == byName.answers)
    #expect(byHandle.log == byName.log)
    #expect(byHandle.kept.map { $0.map(\.text) } == byName.kept.map { $0.map(\.text) })
    #expect(byHandle.kept.map { $0.map(\.id) } == byName.kept.map { $0.map(\.id) })
    // The retries of a kept key are answered with the first id and not delivered again.
    #expect(byName.answers == ["0: id 1", "1: id 1", "2: id 2", "3: id 2", "4: id 2", "5: id 1", "6: id 3"])
    #expect(byName.log == ["a#1 u0: one", "b#1 u1: two", "a#2 u2: three", "b#2 u1: four", "a#3 u0: five"])
  }

  @Test func aHandleOfAnotherRoomOrBrokerIsNotUsed() throws {
    let run = Run(store: InMemoryHistoryStore(retention: 10))
    let other = Run(store: InMemoryHistoryStore(retention: 10))
    let message = ChatMessage(id: 0, room: "b", time: 0, author: "x", color: "red", text: "t")
    // Room a's handle on a draft of room b, another broker's handle of room b, a handle
    // of no broker: each is published to room b, by name.
    for handle in [run.handles["a"], other.handles["b"], BrokerRoomHandle()] {
      run.broker.publish(MessageDraft(message, brokerRoom: handle), on: nil, completion: nil)
    }
    #expect(run.sink.log.withLock { $0 } == ["b#1 x: t", "b#2 x: t", "b#3 x: t"])
    #expect(other.sink.log.withLock { $0 }.isEmpty)
    run.broker.close()
    other.broker.close()
  }

  @Test func aHandleOfAClosedBrokerFailsAsTheNameDoes() {
    let run = Run(store: InMemoryHistoryStore(retention: 10))
    run.broker.close()
    let failures = Mutex<[String]>([])
    let message = ChatMessage(id: 0, room: "a", time: 0, author: "x", color: "red", text: "t")
    for handle in [run.handles["a"], nil] {
      run.broker.publish(MessageDraft(message, brokerRoom: handle), on: InlineExecutor()) { result in
        if case .failure(let error) = result { failures.withLock { $0.append("\(error)") } }
      }
    }
    let seen = failures.withLock { $0 }
    #expect(seen.count == 2)
    #expect(seen.first == seen.last)
  }

  @Test func theInMemoryAppenderKeepsWhatAppendKeeps() throws {
    let viaAppend = InMemoryHistoryStore(retention: 3)
    let viaAppender = InMemoryHistoryStore(retention: 3)
    _ = try viaAppend.loadRoom("r", limit: 0)
    _ = try viaAppender.loadRoom("r", limit: 0)
    let appender = try #require(viaAppender.immediateAppender(forRoom: "r"))
    for id in UInt64(1)...5 {
      let message = ChatMessage(id: id, room: "r", time: Int64(id), author: "a", color: "red", text: "m\(id)")
      viaAppend.append(message, completion: nil)
      appender.append(message)
    }
    #expect(
      try viaAppender.messages(room: "r", after: 0, limit: 10)
        == viaAppend.messages(room: "r", after: 0, limit: 10))
    #expect(try viaAppender.messages(room: "r", after: 0, limit: 10).map(\.id) == [3, 4, 5])
    #expect(try viaAppender.loadRoom("r", limit: 2).recent == viaAppend.loadRoom("r", limit: 2).recent)
    #expect(try viaAppender.loadRoom("r", limit: 2).lastID == 5)
  }
}
