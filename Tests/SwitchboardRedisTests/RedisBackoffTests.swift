import SwitchboardRedis
import SwitchboardTestSupport
import Testing

/// Back-off grows exponentially to its cap, and jitter only ever shortens a delay, within
/// its fraction.
@Suite(.onTestThreads) struct RedisBackoffTests {
  @Test func withoutJitterDelaysDoubleUpToTheMaximum() {
    let backoff = RedisBackoff(initial: .milliseconds(50), maximum: .seconds(1), multiplier: 2, jitter: 0)
    var random = SeededGenerator(seed: 1)
    let delays = (1...8).map { backoff.delay(attempt: $0, using: &random) }
    #expect(delays == [50, 100, 200, 400, 800, 1000, 1000, 1000].map { .milliseconds($0) })
  }

  @Test func jitterTakesUpToItsFractionOff() {
    let backoff = RedisBackoff(initial: .milliseconds(100), maximum: .seconds(10), multiplier: 2, jitter: 0.5)
    var random = SeededGenerator(seed: 42)
    var seen = Set<Duration>()
    for attempt in 1...6 {
      let full = Duration.milliseconds(100) * (1 << (attempt - 1))
      for _ in 0..<200 {
        let delay = backoff.delay(attempt: attempt, using: &random)
        #expect(delay <= full && delay >= full / 2, "attempt \(attempt): \(delay)")
        seen.insert(delay)
      }
    }
    #expect(seen.count > 1000, "the delays differ: nodes do not come back in step")
  }

  @Test func aHugeAttemptNumberStaysAtTheMaximum() {
    let backoff = RedisBackoff(jitter: 0)
    var random = SeededGenerator(seed: 3)
    #expect(backoff.delay(attempt: 10_000, using: &random) == backoff.maximum)
  }
}
