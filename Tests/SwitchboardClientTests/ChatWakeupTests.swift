import SwitchboardTestSupport
import Testing

@testable import SwitchboardClient

/// The connection loop's wake-up: a ring is never lost between a look and a wait.
@Suite(.onTestThreads) struct ChatWakeupTests {
  @Test func aRingBeforeTheWaitEndsItAtOnce() async {
    let wakeup = ChatWakeup()
    let seen = wakeup.generation
    wakeup.ring()
    #expect(await wakeup.wait(since: seen, until: nil))
  }

  @Test func theDeadlineEndsAWaitWithoutARing() async {
    let wakeup = ChatWakeup()
    #expect(await !wakeup.wait(since: wakeup.generation, until: .now + .milliseconds(20)))
  }

  @Test func cancellingTheTaskEndsTheWait() async {
    let wakeup = ChatWakeup()
    let waiter = Task { await wakeup.wait(since: wakeup.generation, until: nil) }
    waiter.cancel()
    #expect(await waiter.value == false)
  }
}
