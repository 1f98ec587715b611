import Foundation
import SwitchboardChat
import SwitchboardStore
import SwitchboardTestSupport
import Testing

@Suite(.onTestThreads)
struct StoreBenchmarkTests {
  @Test(arguments: [SQLiteStoreConfiguration.Durability.none, .batched, .fsync])
  func everyMessageItReportsIsInTheDatabase(durability: SQLiteStoreConfiguration.Durability) throws {
    try withTemporaryDirectory { dir in
      let report = try StoreBenchmark.run(
        directory: dir, messages: 2000, rooms: 3, durability: durability, keepingStore: true)
      #expect(report.failures == 0)
      // What the run left on disk, read back through a store of its own: 667 + 667 + 666
      // messages (under the default retention of 1,000 a room), ids 1… in every room.
      let runs = try FileManager.default.contentsOfDirectory(atPath: dir)
      #expect(runs.count == 1 && runs[0].hasPrefix("bench-"), "\(runs)")
      let store = try SQLiteHistoryStore(directory: dir + "/" + runs[0])
      defer { store.close() }
      var stored = 0
      for (room, expected) in [("room-0", 667), ("room-1", 667), ("room-2", 666)] {
        let messages = try store.messages(room: room, after: 0, limit: 10_000)
        #expect(messages.map(\.id) == Array(1...UInt64(expected)), "\(room)")
        #expect(messages.allSatisfy { $0.room == room && $0.author == "bench" && !$0.text.isEmpty })
        #expect(try store.loadRoom(room, limit: 1).lastID == UInt64(expected))
        stored += messages.count
      }
      #expect(stored == report.messages)
      #expect(try store.messages(room: "room-3", after: 0, limit: 10).isEmpty)
    }
  }

  @Test func theFiguresAreConsistentAndTheRunCleansUpAfterItself() throws {
    try withTemporaryDirectory { dir in
      let report = try StoreBenchmark.run(directory: dir, messages: 1500, rooms: 1, durability: .batched)
      #expect(report.messages == 1500)
      #expect(report.rooms == 1)
      #expect(report.failures == 0)
      #expect(report.seconds > 0)
      // Closing the store commits what the completions acknowledged: it can only take longer.
      #expect(report.committedSeconds >= report.seconds)
      #expect(abs(report.messagesPerSecond - 1500 / report.seconds) < 1e-6)
      // The line shows the same figures, rounded.
      let line = report.description
      #expect(
        line.hasPrefix("1500 messages, 1 room, \(SQLiteStoreConfiguration.Durability.batched): "), "\(line)")
      let numbers = line.split(whereSeparator: { !$0.isNumber && $0 != "." }).compactMap { Double($0) }
      #expect(numbers.count == 6, "\(line)")  // 1500, 1, s, msg/s, committed s, msg/s
      if numbers.count == 6 {
        #expect(abs(numbers[2] - report.seconds) <= 0.0005)
        #expect(numbers[3] == report.messagesPerSecond.rounded())
        #expect(abs(numbers[4] - report.committedSeconds) <= 0.0005)
        #expect(numbers[5] == (1500 / report.committedSeconds).rounded())
      }
      // Without `keepingStore` nothing is left behind.
      #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }
  }

  @Test func anEmptyRunReportsZeroMessagesInOneRoom() throws {
    try withTemporaryDirectory { dir in
      let report = try StoreBenchmark.run(directory: dir, messages: 0, rooms: 0, durability: .fsync)
      #expect(report.messages == 0)
      #expect(report.rooms == 1)  // at least one room
      #expect(report.failures == 0)
      #expect(report.messagesPerSecond == 0)
      #expect(
        report.description.hasPrefix("0 messages, 1 room, \(SQLiteStoreConfiguration.Durability.fsync): "))
      #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }
  }
}
