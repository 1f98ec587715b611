import Testing

@testable import SwitchboardServer

/// The rate of a log line a peer can cause: a burst, then one per interval, each written
/// line saying how many were held back before it.
@Suite(.onTestThreads)
struct LogLineLimiterTests {
  @Test func aBurstThenOneLinePerIntervalWithTheHeldBackCount() {
    let second: UInt64 = 1_000_000_000
    var limiter = LogLineLimiter(burst: 3, interval: .seconds(10), now: 0)
    #expect((0..<3).map { _ in limiter.admit(now: 0) } == [0, 0, 0])
    #expect((0..<100).allSatisfy { _ in limiter.admit(now: 1 * second) == nil })
    #expect(limiter.suppressed == 100)
    #expect(limiter.admit(now: 9 * second) == nil)
    #expect(limiter.admit(now: 10 * second) == 101)
    #expect(limiter.admit(now: 10 * second) == nil)
    // A quiet spell refills the burst.
    #expect((0..<3).map { _ in limiter.admit(now: 100 * second) } == [1, 0, 0])
  }
}
