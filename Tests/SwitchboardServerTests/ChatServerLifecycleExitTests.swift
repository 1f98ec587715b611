import SwitchboardIO
import SwitchboardTestSupport
import Testing

@testable import SwitchboardServer

/// A second `start()`, or a `start()` after `shutdown()`, stops the process (exit tests, in a
/// child process). Suites of exit tests are named `…ExitTests`: scripts/test runs them in a pass
/// of their own (docs/TESTING.md, "Exit tests").
@Suite(.onTestThreads) struct ChatServerLifecycleExitTests {
  @Test func aSecondStartStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let server = try ChatServer(configuration: .loopbackForTesting())
      try server.start()
      try server.start()
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("ChatServer.start() called twice"))
  }

  @Test func startAfterShutdownStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let server = try ChatServer(configuration: .loopbackForTesting())
      server.shutdown()
      try server.start()
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("ChatServer.start() called after shutdown()"))
  }
}
