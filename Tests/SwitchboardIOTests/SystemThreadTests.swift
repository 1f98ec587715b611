import SwitchboardTestSupport
import Testing

@testable import SwitchboardIO

@Suite(.onTestThreads) struct SystemThreadTests {
  @Test(arguments: SelectorBackend.available)
  func loopThreadCarriesItsName(backend: SelectorBackend) throws {
    let loop = try EventLoop(index: 42, backend: backend)
    defer { loop.shutdownGracefully() }
    #expect(try onLoop(loop) { SystemThread.currentName } == "sb-loop-42")
    #if os(Linux)
      // What `top -H`, `ps -L` and debuggers read.
      #expect(threadNames().contains("sb-loop-42"))
    #endif
  }

  @Test func longNamesAreCutToFifteenBytesAtACharacterBoundary() throws {
    #expect(SystemThread.truncated("sb-loop-0") == "sb-loop-0")
    #expect(SystemThread.truncated("switchboard-loop-12") == "switchboard-loo")
    // "é" is two bytes: the one at bytes 14–15 does not fit and is left out whole.
    #expect(SystemThread.truncated("sb-writer-abcdéf") == "sb-writer-abcd")

    let name = Locked("")
    let started = Signal()
    try SystemThread.start(name: "switchboard-writer-thread") {
      name.withLock { $0 = SystemThread.currentName }
      started.fire()
    }
    #expect(started.wait())
    #expect(name.value == "switchboard-wri")
  }
}
