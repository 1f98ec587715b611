import Foundation
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Child processes: output, input, exit status, killing by PID; tools run to completion.
@Suite(.onTestThreads) struct ChildProcessTests {
  @Test func itCollectsOutputFeedsInputAndReportsTheExitStatus() async throws {
    let cat = try ChildProcess(command: ["sh", "-c", "cat; echo done >&2; exit 3"])
    cat.write("hello\n")
    try await cat.waitForOutput("hello\n")
    cat.closeInput()
    #expect(try await cat.waitForExit() == 3)
    #expect(cat.stderr == "done\n")
  }

  @Test func stopKillsItByItsPID() throws {
    let sleeper = try ChildProcess(command: ["sleep", "60"])
    #expect(sleeper.isRunning)
    sleeper.stop()
    #expect(!sleeper.isRunning)
    #expect(sleeper.exitStatus == SIGKILL)
  }

  @Test func runToolReturnsStdoutAndThrowsWithStderrOnFailure() throws {
    #expect(try runTool(["sh", "-c", "echo out; echo err >&2"]) == "out\n")
    let failure = #expect(throws: TestFailure.self) { try runTool(["sh", "-c", "echo broken >&2; exit 1"]) }
    #expect(failure?.description.contains("broken") == true)
    #expect(commandSucceeds(["true"]))
    #expect(!commandSucceeds(["false"]))
  }
}
