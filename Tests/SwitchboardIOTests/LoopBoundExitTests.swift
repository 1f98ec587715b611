import SwitchboardIO
import SwitchboardTestSupport
import Testing

/// What traps, seen from a child process (an exit test). Suites of exit tests are named
/// `…ExitTests`: scripts/test runs them in a pass of their own (docs/TESTING.md, "Exit tests").
@Suite(.onTestThreads) struct LoopBoundExitTests {
  @Test func readingOffTheLoopTraps() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.exitStatus]) {
      let loop = try! EventLoop()
      let box = LoopBound(sending: [1, 2, 3], on: loop)
      _ = box.value
    }
    // A trap (the precondition), not an error or an exit.
    guard case .signal = result?.exitStatus else {
      Issue.record("expected a trap, got \(String(describing: result?.exitStatus))")
      return
    }
  }
}
