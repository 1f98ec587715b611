import Dispatch
import Foundation
import SwitchboardChat
import SwitchboardStore
import Synchronization
import SwitchboardTestSupport
import Testing

@Suite(.onTestThreads)
struct SQLiteHistoryStoreTests {
  @Test func roundTripKeepsIDsEpochAndEveryField() throws {
    try withTemporaryDirectory { dir in
      let messages = (1...300).map { makeMessage($0) }
      let epoch: String
      do {
        let store = try SQLiteHistoryStore(directory: dir, configuration: SQLiteStoreConfiguration())
        let fresh = try store.loadRoom("lobby", limit: 10)
        #expect(fresh.lastID == 0)
        #expect(fresh.recent.isEmpty)
        epoch = fresh.epoch
        let results = appendAll(store, messages)
        #expect(results.allSatisfy { $0?.isSuccess == true })
        store.close()
      }
      let reopened = try SQLiteHistoryStore(directory: dir, configuration: SQLiteStoreConfiguration())
      defer { reopened.close() }
      let snapshot = try reopened.loadRoom("lobby", limit: 50)
      #expect(snapshot.lastID == 300)
      #expect(snapshot.epoch == epoch)
      #expect(snapshot.recent == Array(messages.suffix(50)))
      #expect(snapshot.recent.first?.text.contains("\u{0}:end") == true)
    }
  }

  @Test func roomsHaveTheirOwnEpochsAndIDs() throws {
    try withTemporaryDirectory { dir in
      let store = try SQLiteHistoryStore(directory: dir)
      defer { store.close() }
      appendAll(
        store, (1...3).map { makeMessage($0, room: "a") } + (1...7).map { makeMessage($0, room: "b") })
      let a = try store.loadRoom("a", limit: 100)
      let b = try store.loadRoom("b", limit: 100)
      #expect(a.lastID == 3)
      #expect(b.lastID == 7)
      #expect(a.epoch != b.epoch)
      #expect(a.recent.map(\.id) == [1, 2, 3])
      #expect(a.recent.allSatisfy { $0.room == "a" })
      // Loading is stable: the epoch is stored, not regenerated.
      #expect(try store.loadRoom("a", limit: 0).epoch == a.epoch)
      #expect(try store.loadRoom("a", limit: 0).recent.isEmpty)
    }
  }

  @Test func idsContinueAfterReopenAndMessagesAfterIsExact() throws {
    try withTemporaryDirectory { dir in
      do {
        let store = try SQLiteHistoryStore(directory: dir)
        appendAll(store, (1...20).map { makeMessage($0) })
        store.close()
      }
      let store = try SQLiteHistoryStore(directory: dir)
      defer { store.close() }
      let snapshot = try store.loadRoom("lobby", limit: 5)
      #expect(snapshot.lastID == 20)
      let next = (snapshot.lastID + 1...snapshot.lastID + 10).map { makeMessage($0) }
      #expect(appendAll(store, next).allSatisfy { $0?.isSuccess == true })

      #expect(try store.messages(room: "lobby", after: 17, limit: 100).map(\.id) == Array(18...30))
      #expect(try store.messages(room: "lobby", after: 17, limit: 4).map(\.id) == [18, 19, 20, 21])
      #expect(try store.messages(room: "lobby", after: 25, limit: 100) == Array(next.suffix(5)))
      #expect(try store.messages(room: "lobby", after: 30, limit: 100).isEmpty)
      #expect(try store.messages(room: "lobby", after: 0, limit: 0).isEmpty)
      #expect(try store.messages(room: "nowhere", after: 0, limit: 10).isEmpty)
      #expect(try store.loadRoom("lobby", limit: 1).lastID == 30)
    }
  }

  @Test func readsSeeMessagesStillQueued() throws {
    try withTemporaryDirectory { dir in
      var configuration = SQLiteStoreConfiguration()
      configuration.batchInterval = .seconds(10)  // the writer would linger; the read must cut it short
      let store = try SQLiteHistoryStore(directory: dir, configuration: configuration)
      defer { store.close() }
      for id in 1...5 { store.append(makeMessage(UInt64(id)), completion: nil) }
      let start = ContinuousClock.now
      #expect(try store.messages(room: "lobby", after: 0, limit: 10).map(\.id) == [1, 2, 3, 4, 5])
      #expect(try store.loadRoom("lobby", limit: 10).lastID == 5)
      #expect(start.duration(to: .now) < .seconds(30))
    }
  }

  @Test func retentionByCountLimitsReadsAndPrunesRows() throws {
    try withTemporaryDirectory { dir in
      var configuration = immediateConfiguration()
      configuration.retentionCount = 10
      configuration.pruneEveryBatches = 1
      do {
        let store = try SQLiteHistoryStore(directory: dir, configuration: configuration)
        appendAll(store, (1...25).map { makeMessage($0) })
        #expect(try store.loadRoom("lobby", limit: 100).recent.map(\.id) == Array(16...25))
        #expect(try store.messages(room: "lobby", after: 3, limit: 100).map(\.id) == Array(16...25))
        #expect(try store.messages(room: "lobby", after: 20, limit: 100).map(\.id) == Array(21...25))
        store.close()
      }
      // Reopened with a generous retention: the old rows are gone from the file, not hidden.
      let store = try SQLiteHistoryStore(directory: dir, configuration: SQLiteStoreConfiguration())
      defer { store.close() }
      let snapshot = try store.loadRoom("lobby", limit: 100)
      #expect(snapshot.lastID == 25)
      #expect(snapshot.recent.map(\.id) == Array(16...25))
    }
  }

  @Test func loweringRetentionPrunesAtOpen() throws {
    try withTemporaryDirectory { dir in
      do {
        let store = try SQLiteHistoryStore(directory: dir)
        appendAll(store, (1...30).map { makeMessage($0) } + (1...4).map { makeMessage($0, room: "small") })
        store.close()
      }
      var configuration = SQLiteStoreConfiguration()
      configuration.retentionCount = 5
      do {
        let store = try SQLiteHistoryStore(directory: dir, configuration: configuration)
        store.close()
      }
      let store = try SQLiteHistoryStore(directory: dir)
      defer { store.close() }
      #expect(try store.messages(room: "lobby", after: 0, limit: 100).map(\.id) == Array(26...30))
      #expect(try store.messages(room: "small", after: 0, limit: 100).map(\.id) == [1, 2, 3, 4])
    }
  }

  @Test func retentionByAgeUsesTheInjectedClock() throws {
    try withTemporaryDirectory { dir in
      let now = Mutex<Int64>(10_000_000)
      var configuration = SQLiteStoreConfiguration()
      configuration.retentionAge = .seconds(60)
      configuration.clock = { now.withLock { $0 } }
      let old = (1...5).map { makeMessage($0, time: 10_000_000 - 120_000) }
      let recent = (6...10).map { makeMessage($0, time: 10_000_000 - 10_000) }
      do {
        let store = try SQLiteHistoryStore(directory: dir, configuration: configuration)
        appendAll(store, old + recent)
        #expect(try store.loadRoom("lobby", limit: 100).recent == recent)
        #expect(try store.messages(room: "lobby", after: 0, limit: 100) == recent)
        // Time passes: now the recent ones are too old as well.
        now.withLock { $0 += 55_000 }
        #expect(try store.messages(room: "lobby", after: 0, limit: 100).isEmpty)
        now.withLock { $0 -= 55_000 }
        try store.prune()
        store.close()
      }
      let store = try SQLiteHistoryStore(directory: dir)
      defer { store.close() }
      let snapshot = try store.loadRoom("lobby", limit: 100)
      #expect(snapshot.lastID == 10)
      #expect(snapshot.recent == recent)
    }
  }

  @Test func acknowledgedMessagesSurviveWithoutClose() throws {
    try withTemporaryDirectory { dir in
      // The first store is never closed before the second opens, as if its process had
      // been killed right after the acknowledgements (SQLite's WAL, not our process,
      // holds the rows).
      let first = try SQLiteHistoryStore(directory: dir)
      let epoch = try first.loadRoom("lobby", limit: 0).epoch
      let messages = (1...200).map { makeMessage($0) }
      #expect(appendAll(first, messages).allSatisfy { $0?.isSuccess == true })

      let second = try SQLiteHistoryStore(directory: dir)
      let snapshot = try second.loadRoom("lobby", limit: 1000)
      #expect(snapshot.lastID == 200)
      #expect(snapshot.epoch == epoch)
      #expect(snapshot.recent == messages)
      second.close()
      first.close()
    }
  }

  /// Shared by the appending tasks.
  private final class Tally: Sendable {
    let nextIDs = Mutex<[String: UInt64]>([:])
    let completed = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
  }

  @Test func concurrentAppendersCompleteEveryRoom() async throws {
    try await withTemporaryDirectoryAsync { dir in
      var configuration = SQLiteStoreConfiguration()
      configuration.maxBatch = 64
      let store = try SQLiteHistoryStore(directory: dir, configuration: configuration)
      defer { store.close() }
      let rooms = ["r0", "r1", "r2", "r3"]
      let perTask = 500
      let tally = Tally()
      await withTaskGroup(of: Void.self) { group in
        for task in 0..<8 {
          group.addTask {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
              let left = Atomic<Int>(perTask)
              for index in 0..<perTask {
                let room = rooms[(task + index) % rooms.count]
                // The id is taken and the message queued under one lock, as the hub does,
                // so each room's queue order is its id order.
                tally.nextIDs.withLock { ids in
                  let id = (ids[room] ?? 0) + 1
                  ids[room] = id
                  store.append(makeMessage(id, room: room)) { result in
                    if case .failure = result { tally.failed.add(1, ordering: .relaxed) }
                    tally.completed.add(1, ordering: .relaxed)
                    if left.subtract(1, ordering: .relaxed).newValue == 0 { done.resume() }
                  }
                }
              }
            }
          }
        }
      }
      #expect(tally.completed.load(ordering: .relaxed) == 8 * perTask)
      #expect(tally.failed.load(ordering: .relaxed) == 0)
      let ids = tally.nextIDs.withLock { $0 }
      #expect(ids.values.reduce(0, +) == UInt64(8 * perTask))
      for room in rooms {
        let lastID = try #require(ids[room])
        let snapshot = try store.loadRoom(room, limit: 5000)
        #expect(snapshot.lastID == lastID)
        #expect(snapshot.recent.map(\.id) == Array(1...lastID))
        #expect(try store.messages(room: room, after: 0, limit: 5000).count == Int(lastID))
      }
    }
  }

  @Test func noneDurabilityCompletesAtOnceAndStillCommits() throws {
    try withTemporaryDirectory { dir in
      var configuration = SQLiteStoreConfiguration()
      configuration.durability = .none
      configuration.batchInterval = .seconds(10)
      let store = try SQLiteHistoryStore(directory: dir, configuration: configuration)
      let ran = Atomic<Int>(0)
      for id in 1...10 {
        store.append(makeMessage(UInt64(id))) { result in
          if case .success = result { ran.add(1, ordering: .relaxed) }
        }
      }
      #expect(ran.load(ordering: .relaxed) == 10)  // before any commit: the writer still lingers
      store.close()
      let reopened = try SQLiteHistoryStore(directory: dir)
      defer { reopened.close() }
      #expect(try reopened.loadRoom("lobby", limit: 100).recent.map(\.id) == Array(1...10))
    }
  }

  @Test func fsyncDurabilityRoundTrips() throws {
    try withTemporaryDirectory { dir in
      var configuration = SQLiteStoreConfiguration()
      configuration.durability = .fsync
      let store = try SQLiteHistoryStore(directory: dir, configuration: configuration)
      #expect(appendAll(store, (1...50).map { makeMessage($0) }).allSatisfy { $0?.isSuccess == true })
      store.close()
      let reopened = try SQLiteHistoryStore(directory: dir, configuration: configuration)
      defer { reopened.close() }
      #expect(try reopened.loadRoom("lobby", limit: 100).lastID == 50)
    }
  }

  @Test func closeDrainsIsIdempotentAndLaterCallsFail() throws {
    try withTemporaryDirectory { dir in
      let store = try SQLiteHistoryStore(directory: dir)
      let acknowledged = Atomic<Int>(0)
      for id in 1...100 {
        store.append(makeMessage(UInt64(id))) { result in
          if case .success = result { acknowledged.add(1, ordering: .relaxed) }
        }
      }
      store.close()
      #expect(acknowledged.load(ordering: .relaxed) == 100)
      store.close()
      let late = appendAll(store, [makeMessage(101)])
      #expect(late.first??.failure?.message == "history store is closed")
      #expect(late.first??.failure == .closed)
      #expect(throws: StoreError.closed) {
        try store.messages(room: "lobby", after: 0, limit: 1)
      }
      #expect(throws: StoreError.closed) { try store.loadRoom("lobby", limit: 1) }
    }
  }

  @Test func closeFromACompletionDoesNotDeadlock() throws {
    try withTemporaryDirectory { dir in
      let store = try SQLiteHistoryStore(directory: dir)
      let done = DispatchSemaphore(value: 0)
      store.append(makeMessage(1)) { _ in
        // On the writer thread: reads return without waiting, close only starts closing.
        _ = try? store.messages(room: "lobby", after: 0, limit: 10)
        store.close()
        done.signal()
      }
      #expect(done.wait(timeout: .now() + 10) == .success)
      store.close()
      let reopened = try SQLiteHistoryStore(directory: dir)
      defer { reopened.close() }
      #expect(try reopened.loadRoom("lobby", limit: 10).lastID == 1)
    }
  }

  @Test func droppingTheStoreClosesIt() throws {
    try withTemporaryDirectory { dir in
      let acknowledged = Atomic<Int>(0)
      do {
        let store = try SQLiteHistoryStore(directory: dir)
        for id in 1...20 {
          store.append(makeMessage(UInt64(id))) { _ in acknowledged.add(1, ordering: .relaxed) }
        }
      }
      #expect(acknowledged.load(ordering: .relaxed) == 20)
      #expect(!FileManager.default.fileExists(atPath: dir + "/history.sqlite3-wal"))
      let reopened = try SQLiteHistoryStore(directory: dir)
      defer { reopened.close() }
      #expect(try reopened.loadRoom("lobby", limit: 100).lastID == 20)
    }
  }

  @Test func createsMissingDirectories() throws {
    try withTemporaryDirectory { dir in
      let store = try SQLiteHistoryStore(directory: dir + "/a/b/c")
      defer { store.close() }
      #expect(store.path == dir + "/a/b/c/history.sqlite3")
      #expect(FileManager.default.fileExists(atPath: store.path))
    }
  }
}
