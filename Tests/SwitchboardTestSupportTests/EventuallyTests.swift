import Foundation
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Deadline waits: at once when the condition holds, a failure naming it at the deadline.
@Suite(.onTestThreads) struct EventuallyTests {
  @Test func aSynchronousWaitReturnsAtOnceWhenTheConditionHoldsAndFalseAtTheDeadline() {
    #expect(eventually(timeout: .seconds(5)) { true })
    let clock = ContinuousClock()
    let start = clock.now
    #expect(!eventually(timeout: .milliseconds(50)) { false })
    #expect(start.duration(to: clock.now) >= .milliseconds(50))
  }

  @Test func anAsyncWaitThrowsATestFailureNamingWhatItWaitedFor() async throws {
    try await eventually(timeout: .seconds(5), "nothing") { true }
    let failure = await #expect(throws: TestFailure.self) {
      try await eventually(timeout: .milliseconds(50), "the impossible") { false }
    }
    #expect(failure?.description.contains("the impossible") == true)
  }

  @Test func aWaitSeesAConditionAnotherThreadMakesTrue() async throws {
    let flag = Locked(false)
    Thread.detachNewThread {
      usleep(20_000)
      flag.withLock { $0 = true }
    }
    try await eventually("the flag") { flag.value }
  }
}
