import Foundation
import SwitchboardChat
import SwitchboardStore
import SwitchboardTestSupport
import Testing

/// Bad files and bad disks: every one must fail in `init` or through a completion with a
/// message naming the path and the cause, and never crash later.
@Suite(.onTestThreads)
struct SQLiteHistoryStoreFailureTests {
  /// The `StoreError` `body` throws, or `nil`.
  private func storeError(_ body: () throws -> Void) -> StoreError? {
    do {
      try body()
      return nil
    } catch {
      return error as? StoreError
    }
  }

  @Test func randomBytesAreNotADatabase() throws {
    try withTemporaryDirectory { dir in
      let path = dir + "/history.sqlite3"
      let garbage = Data((0..<8192).map { _ in UInt8.random(in: 0...255) })
      #expect(FileManager.default.createFile(atPath: path, contents: garbage))
      let error = storeError { _ = try SQLiteHistoryStore(directory: dir) }
      #expect(error?.message == "cannot open history at \(path): file is not a database")
      #expect(error == .cannotOpen)
      // The file is left alone for the operator to inspect.
      #expect(FileManager.default.contents(atPath: path) == garbage)
    }
  }

  @Test func damagedPagesFailTheIntegrityCheck() throws {
    try withTemporaryDirectory { dir in
      do {
        let store = try SQLiteHistoryStore(directory: dir)
        appendAll(store, (1...400).map { makeMessage($0, text: String(repeating: "x", count: 200)) })
        store.close()
      }
      let path = dir + "/history.sqlite3"
      var bytes = try #require(FileManager.default.contents(atPath: path))
      #expect(bytes.count > 16 * 4096)
      // Keep the header page (so it still looks like SQLite), scramble the rest.
      for index in 4096..<bytes.count { bytes[index] = UInt8.random(in: 0...255) }
      try bytes.write(to: URL(fileURLWithPath: path))
      let error = try #require(storeError { _ = try SQLiteHistoryStore(directory: dir) })
      #expect(error.message.hasPrefix("cannot open history at \(path): "))
      #expect(error.message.contains("malformed") || error.message.contains("integrity check failed"))
      #expect(error == .cannotOpen)
    }
  }

  @Test func directoryPathThatIsAFileIsRefused() throws {
    try withTemporaryDirectory { dir in
      let file = dir + "/plain-file"
      #expect(FileManager.default.createFile(atPath: file, contents: Data("hi".utf8)))
      #expect(
        storeError { _ = try SQLiteHistoryStore(directory: file) }?.message
          == "cannot open history at \(file): not a directory")
    }
  }

  @Test func databasePathThatIsADirectoryIsRefused() throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.createDirectory(
        atPath: dir + "/history.sqlite3", withIntermediateDirectories: false)
      let error = storeError { _ = try SQLiteHistoryStore(directory: dir) }
      #expect(error?.message == "cannot open history at \(dir)/history.sqlite3: unable to open database file")
      #expect(error == .cannotOpen)
    }
  }

  /// As a normal user a directory without write permission is refused up front. Root
  /// writes through permission bits (and read-only mounts need privileges a test should
  /// not use), so as root the unwritable directory is one below a regular file, which no
  /// user can create.
  @Test func unwritableDirectoryIsRefused() throws {
    try withTemporaryDirectory { dir in
      if runningAsRoot {
        let file = dir + "/plain-file"
        #expect(FileManager.default.createFile(atPath: file, contents: nil))
        let error = storeError { _ = try SQLiteHistoryStore(directory: file + "/history") }
        #expect(
          error?.message == "cannot open history at \(file)/history: \(file) is not a directory")
      } else {
        let locked = dir + "/locked"
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false)
        #expect(chmod(locked, 0o500) == 0)
        let error = storeError { _ = try SQLiteHistoryStore(directory: locked) }
        #expect(
          error?.message == "cannot open history at \(locked): directory is not writable: Permission denied")
        let nested = storeError { _ = try SQLiteHistoryStore(directory: locked + "/sub") }
        #expect(
          nested?.message.hasPrefix("cannot open history at \(locked)/sub: cannot create directory") == true)
      }
    }
  }

  @Test func fullDatabaseFailsTheBatchAndKeepsWorking() throws {
    try withTemporaryDirectory { dir in
      var configuration = immediateConfiguration()
      configuration.maxDatabaseBytes = 128 * 1024
      let store = try SQLiteHistoryStore(directory: dir, configuration: configuration)
      defer { store.close() }
      let path = dir + "/history.sqlite3"

      // One message bigger than the whole allowance fails, with the cause.
      let huge = makeMessage(1, text: String(repeating: "ß", count: 100_000))
      let failed = appendAll(store, [huge])
      #expect(failed.first??.failure?.message == "cannot write history at \(path): database or disk is full")
      #expect(failed.first??.failure == .writeFailed)

      // The writer carries on: the next message commits.
      #expect(appendAll(store, [makeMessage(2)]).first??.isSuccess == true)
      #expect(try store.messages(room: "lobby", after: 0, limit: 10).map(\.id) == [2])

      // Filling up message by message: some batch fails, none crashes, reads still work.
      let filler = (3...200).map { makeMessage($0, text: String(repeating: "f", count: 2000)) }
      let results = appendAll(store, filler)
      #expect(results.allSatisfy { $0 != nil })
      let failures = results.compactMap { $0?.failure }
      #expect(!failures.isEmpty)
      #expect(failures.allSatisfy { $0.message.hasSuffix("database or disk is full") })
      let stored = try store.messages(room: "lobby", after: 0, limit: 1000)
      #expect(stored.count < 199)
      #expect(stored.first?.id == 2)
      // Loading a new room needs a row too: it either works or says why.
      let newRoom = storeError { _ = try store.loadRoom("another", limit: 10) }
      #expect(newRoom == nil || newRoom!.message.hasSuffix("database or disk is full"))
    }
  }

  @Test func fullDatabaseRecoversOnceRetentionFreesSpace() throws {
    try withTemporaryDirectory { dir in
      var configuration = immediateConfiguration()
      configuration.maxDatabaseBytes = 96 * 1024
      configuration.retentionCount = 5
      configuration.pruneEveryBatches = 1000  // only the prune after a failure runs
      let store = try SQLiteHistoryStore(directory: dir, configuration: configuration)
      defer { store.close() }
      var sawFailure = false
      var lastSuccess: UInt64 = 0
      // One message per batch: sooner or later the file is full, the failed batch
      // triggers a prune, and the writes after it succeed again.
      for id in UInt64(1)...80 {
        let result = appendAll(store, [makeMessage(id, text: String(repeating: "r", count: 3000))]).first!
        if result?.isSuccess == true {
          lastSuccess = id
        } else {
          sawFailure = true
        }
      }
      #expect(sawFailure)
      #expect(lastSuccess == 80)
      #expect(try store.messages(room: "lobby", after: 0, limit: 100).last?.id == 80)
    }
  }
}
