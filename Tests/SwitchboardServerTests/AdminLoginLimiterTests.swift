import Testing

@testable import SwitchboardServer

/// The admin console's login limiter and session table, with the time passed in.
@Suite(.onTestThreads)
struct AdminLoginLimiterTests {
  @Test func fourFailuresBlockThenEachFailureDoublesTheWaitUpToFiveMinutes() {
    var limiter = AdminLoginLimiter()
    for t in 0..<4 {
      #expect(limiter.admit("a", now: Int64(t)) == .check)
      limiter.failed("a", now: Int64(t))
    }
    #expect(limiter.admit("a", now: 10) == .refuse(retryAfter: 2))
    #expect(limiter.admit("b", now: 10) == .check, "another address is not limited")
    // After the wait a try is checked again; a failure blocks for twice as long.
    #expect(limiter.admit("a", now: 2_003) == .check)
    limiter.failed("a", now: 2_003)
    #expect(limiter.admit("a", now: 2_004) == .refuse(retryAfter: 4))
    var now: Int64 = 2_003
    var waits: [Int] = []
    for _ in 0..<9 {
      guard case .refuse(let wait) = limiter.admit("a", now: now) else { break }
      waits.append(wait)
      now += Int64(wait) * 1000
      #expect(limiter.admit("a", now: now) == .check)
      limiter.failed("a", now: now)
    }
    #expect(waits == [4, 8, 16, 32, 64, 128, 256, 300, 300])
    limiter.succeeded("a")
    #expect(limiter.admit("a", now: now + 1) == .check)
  }

  @Test func failuresOlderThanTheWindowAreForgotten() {
    var limiter = AdminLoginLimiter()
    for t in 0..<3 { limiter.failed("a", now: Int64(t)) }
    limiter.failed("a", now: AdminLoginLimiter.window + 10)
    #expect(limiter.admit("a", now: AdminLoginLimiter.window + 11) == .check)
  }

  @Test func theTableIsBounded() {
    var limiter = AdminLoginLimiter(capacity: 3)
    for (i, address) in ["a", "b", "c", "d"].enumerated() { limiter.failed(address, now: Int64(i)) }
    #expect(limiter.entries.count == 3)
    #expect(limiter.entries["a"] == nil, "the oldest is dropped")
  }

  @Test func sessionsExpireAndTheOldestIsDroppedBeyondCapacity() {
    var table = AdminSessionTable(capacity: 2, lifetime: .seconds(10))
    let first = table.open(id: "1", csrf: "t1", now: 0)
    #expect(first.expires == 10_000)
    _ = table.open(id: "2", csrf: "t2", now: 1)
    #expect(table.find("1", now: 5)?.csrf == "t1")
    _ = table.open(id: "3", csrf: "t3", now: 2)
    #expect(table.find("1", now: 5) == nil)
    #expect(table.find("2", now: 10_000) != nil)
    #expect(table.find("2", now: 10_001) == nil)
    table.close("3")
    #expect(table.find("3", now: 3) == nil)
    #expect(table.count == 0)
  }
}
