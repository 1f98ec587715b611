import SwitchboardIO
import Testing

@testable import SwitchboardServer

/// The pure rate-limit types, driven by a made-up clock.
@Suite(.onTestThreads)
struct TokenBucketTests {
  private let second: UInt64 = 1_000_000_000

  @Test func aBucketGivesItsBurstThenItsRate() {
    var bucket = TokenBucket(rate: 10, burst: 20, now: 0)
    var taken = 0
    for _ in 0..<25 where bucket.take(now: 0) { taken += 1 }
    #expect(taken == 20)
    let early = bucket.take(now: second / 20)
    let onTime = bucket.take(now: second / 10)
    #expect(!early)
    #expect(onTime)
    #expect(bucket.isFull(now: 10 * second))
  }

  @Test func aFlooderIsRefusedThenClosedAndASlowSenderNever() {
    var flood = MessageRateLimiter(rate: 10, now: 0)
    var verdicts: [MessageRateLimiter.Verdict] = []
    for i in 0..<100 { verdicts.append(flood.admit(now: UInt64(i) * second / 1000)) }
    #expect(verdicts.prefix(20).allSatisfy { $0 == .accept })
    #expect(verdicts[20] == .refuse)
    #expect(verdicts.contains(.close))
    var slow = MessageRateLimiter(rate: 10, now: 0)
    var slowVerdicts: Set<MessageRateLimiter.Verdict> = []
    for i in 0..<1000 { slowVerdicts.insert(slow.admit(now: UInt64(i) * second / 9)) }
    #expect(slowVerdicts == [.accept])
  }

  @Test func theByteRateChargesLengthsAndAMessageOverTheBurstNeedsAFullBucket() {
    var bytes = MessageRateLimiter(rate: 100, strikesBeforeClose: MessageRateLimiter.byteRateStrikes, now: 0)
    #expect(bytes.admit(cost: 150, now: 0) == .accept)
    #expect(bytes.admit(cost: 50, now: 0) == .accept)
    #expect(bytes.admit(cost: 1, now: 0) == .refuse)
    // 1000 bytes against a burst of 200: it costs the whole burst, so it waits for a full bucket.
    #expect(bytes.admit(cost: 1000, now: second) == .refuse)
    #expect(bytes.admit(cost: 1000, now: 3 * second) == .accept)
    // Strikes are messages, not bytes: 20 refusals in a row close.
    var verdicts: [MessageRateLimiter.Verdict] = []
    for _ in 0..<20 { verdicts.append(bytes.admit(cost: 10, now: 3 * second)) }
    #expect(verdicts.dropLast().allSatisfy { $0 == .refuse })
    #expect(verdicts.last == .close)
  }

  @Test func theMessageLimiterIsCheckedBeforeTheByteLimiter() {
    let metrics = LimitMetrics()
    var messages: MessageRateLimiter? = MessageRateLimiter(rate: 1, now: 0)
    var bytes: MessageRateLimiter? = MessageRateLimiter(rate: 10, strikesBeforeClose: 20, now: 0)
    #expect(
      MessageRateLimiter.judge(messages: &messages, bytes: &bytes, cost: 15, now: 0, metrics: metrics) == (
        .accept, .messages
      ))
    #expect(
      MessageRateLimiter.judge(messages: &messages, bytes: &bytes, cost: 15, now: 0, metrics: metrics) == (
        .refuse, .bytes
      ))
    #expect(
      MessageRateLimiter.judge(messages: &messages, bytes: &bytes, cost: 1, now: 0, metrics: metrics) == (
        .refuse, .messages
      ))
    #expect(metrics.bytesRateLimited.load(ordering: .relaxed) == 1)
    #expect(metrics.messagesRateLimited.load(ordering: .relaxed) == 1)
    var off: MessageRateLimiter? = nil
    var alsoOff: MessageRateLimiter? = nil
    #expect(
      MessageRateLimiter.judge(messages: &off, bytes: &alsoOff, cost: 1 << 30, now: 0, metrics: metrics) == (
        .accept, .messages
      ))
  }

  @Test func sourcesHaveTheirOwnBuckets() {
    var limiter = SourceRateLimiter(rate: 5, maxSources: 2)
    var admitted = 0
    for _ in 0..<50 where limiter.admit(source: "a", now: 0) { admitted += 1 }
    #expect(admitted == 10)
    let b = limiter.admit(source: "b", now: 0)
    let c = limiter.admit(source: "c", now: 0)  // the table was full: it started over
    #expect(b && c)
    limiter.sweep(now: 10 * second)
    #expect(limiter.sourceCount == 0)
  }
}
