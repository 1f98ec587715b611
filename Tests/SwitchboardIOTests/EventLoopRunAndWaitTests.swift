import Dispatch
import SwitchboardIO
import SwitchboardTestSupport
import Testing

/// `EventLoop.runAndWait`, the one "run this on the loop and wait" helper the server,
/// discovery and the tests' `onLoop` use: the body runs on the loop's thread, its error
/// comes back typed, a caller on the loop runs it at once, and a stuck loop ends a timed
/// wait with `nil` instead of hanging it.
@Suite(.onTestThreads)
struct EventLoopRunAndWaitTests {
  struct Refused: Error, Equatable {}

  @Test func theBodyRunsOnTheLoopAndItsResultComesBack() throws {
    let group = try EventLoopGroup(count: 1)
    defer { group.shutdownGracefully() }
    let loop = group.loops[0]
    #expect(!loop.inEventLoop)
    #expect(loop.runAndWait { loop.inEventLoop })
    #expect(loop.runAndWait { 6 * 7 } == 42)
  }

  @Test func aThrownErrorComesBackAsItsOwnType() throws {
    let group = try EventLoopGroup(count: 1)
    defer { group.shutdownGracefully() }
    let outcome = Result { () throws(Refused) -> Int in
      try group.loops[0].runAndWait { () throws(Refused) -> Int in throw Refused() }
    }
    #expect(outcome == .failure(Refused()))
  }

  @Test func onTheLoopTheBodyRunsAtOnce() throws {
    let group = try EventLoopGroup(count: 1)
    defer { group.shutdownGracefully() }
    let loop = group.loops[0]
    // A wait for a task queued behind the running one would never end.
    let nested = try onLoop(loop) { loop.runAndWait { loop.inEventLoop } }
    #expect(nested)
  }

  @Test func aTimedWaitOnAStuckLoopEndsWithNil() throws {
    let group = try EventLoopGroup(count: 1)
    defer { group.shutdownGracefully() }
    let loop = group.loops[0]
    let release = DispatchSemaphore(value: 0)
    loop.execute { release.wait() }
    let stuck = loop.runAndWait(timeout: .milliseconds(50)) { 1 }
    release.signal()
    #expect(stuck == nil)
    #expect(loop.runAndWait(timeout: .seconds(10)) { 2 } == 2)
  }
}
