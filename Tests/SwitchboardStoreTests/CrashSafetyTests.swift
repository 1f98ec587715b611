import Foundation
import SwitchboardChat
import SwitchboardStore
import Synchronization
import Testing
import SwitchboardTestSupport

/// Acknowledged messages must survive the process being killed: the test binary runs
/// itself again (just `childAppendsUntilKilled`), the child appends and SIGKILLs itself
/// from the completion of message `acknowledgedBeforeKill`, with later writes still
/// queued, and the parent reopens the history.
@Suite(.onTestThreads)
struct CrashSafetyTests {
  static let directoryVariable = "SWITCHBOARD_STORE_CRASH_CHILD_DIR"
  static let acknowledgedBeforeKill = 1000
  static let configuration = SQLiteStoreConfiguration(retentionCount: 10_000)

  #if os(Linux)
    @Test func acknowledgedMessagesSurviveSIGKILL() throws {
      try withTemporaryDirectory { dir in
        let child = try ChildProcess(
          "/proc/self/exe", ["--testing-library", "swift-testing", "--filter", "childAppendsUntilKilled"],
          environment: [Self.directoryVariable: dir])
        _ = try child.waitForExit(timeout: .seconds(60))
        #expect(child.termination == .signalled(SIGKILL))
        #expect(child.stdout.contains("acked \(Self.acknowledgedBeforeKill)"))

        let store = try SQLiteHistoryStore(directory: dir, configuration: Self.configuration)
        defer { store.close() }
        let snapshot = try store.loadRoom("lobby", limit: 5000)
        #expect(snapshot.lastID >= UInt64(Self.acknowledgedBeforeKill))
        // Everything acknowledged is there, intact; what followed may or may not be.
        let kept = Array(snapshot.recent.prefix(Self.acknowledgedBeforeKill))
        #expect(kept.map(\.id) == Array(1...UInt64(Self.acknowledgedBeforeKill)))
        #expect(kept.allSatisfy { $0 == makeMessage($0.id) })
        #expect(snapshot.recent.count == Int(snapshot.lastID))
      }
    }
  #endif

  @Test(.enabled(ifAvailable: ProcessInfo.processInfo.environment[directoryVariable] != nil))
  func childAppendsUntilKilled() throws {
    let dir = try #require(ProcessInfo.processInfo.environment[Self.directoryVariable])
    let store = try SQLiteHistoryStore(directory: dir, configuration: Self.configuration)
    let acknowledged = Atomic<Int>(0)
    for id in UInt64(1)...3000 {
      store.append(makeMessage(id)) { result in
        guard case .success = result else { return }
        if acknowledged.add(1, ordering: .relaxed).newValue == Self.acknowledgedBeforeKill {
          let line = Array("acked \(Self.acknowledgedBeforeKill)\n".utf8)
          _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
          kill(getpid(), SIGKILL)
        }
      }
    }
    // Not reached: the kill comes from the writer thread while this waits.
    _ = try store.messages(room: "lobby", after: 0, limit: 1)
    Thread.sleep(forTimeInterval: 30)
    Issue.record("the child was not killed")
  }
}
