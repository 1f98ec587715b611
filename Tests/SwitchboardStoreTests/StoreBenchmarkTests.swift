import Foundation
import SwitchboardStore
import Testing

struct StoreBenchmarkTests {
  @Test(arguments: [SQLiteStoreConfiguration.Durability.none, .batched, .fsync])
  func smallRunReportsEveryMessage(durability: SQLiteStoreConfiguration.Durability) throws {
    try withTemporaryDirectory { dir in
      let report = try StoreBenchmark.run(directory: dir, messages: 2000, rooms: 3, durability: durability)
      #expect(report.messages == 2000)
      #expect(report.failures == 0)
      #expect(report.messagesPerSecond > 0)
      #expect(report.description.hasPrefix("2000 messages, 3 rooms, \(durability): "))
      // The benchmark cleans up after itself.
      #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }
  }
}
