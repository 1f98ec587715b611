import Testing

@testable import SwitchboardRedis

/// The pub/sub probe's decisions, without Redis: a probe that comes back (before or after
/// Redis's answer) is fine, one that does not — or that nobody was subscribed for — asks
/// for the connection to be replaced, and a failed command decides nothing.
@Suite(.onTestThreads)
struct RedisProbeTests {
  @Test func aProbeThatComesBackAfterTheAnswerIsFine() {
    var probe = RedisProbe()
    let token = probe.start()!
    #expect(probe.start() == nil, "one probe at a time")
    #expect(probe.answered(token: token, receivers: 1) == .await(token: token))
    probe.arrived(token: token)
    #expect(probe.phase == .idle)
    #expect(probe.expired(token: token) == .none)
    #expect(probe.start() == token + 1)
  }

  @Test func aProbeThatComesBackBeforeTheAnswerIsFine() {
    var probe = RedisProbe()
    let token = probe.start()!
    probe.arrived(token: token)
    #expect(probe.answered(token: token, receivers: 1) == .none)
    #expect(probe.phase == .idle)
  }

  @Test func aProbeThatDoesNotComeBackAsksForAReplacement() {
    var probe = RedisProbe()
    let token = probe.start()!
    #expect(probe.answered(token: token, receivers: 1) == .await(token: token))
    guard case .replace = probe.expired(token: token) else {
      Issue.record("an expired probe must replace the connection")
      return
    }
    #expect(probe.phase == .idle)
  }

  @Test func noSubscriberAtAllAsksForAReplacement() {
    var probe = RedisProbe()
    let token = probe.start()!
    guard case .replace(let reason) = probe.answered(token: token, receivers: 0) else {
      Issue.record("zero receivers must replace the connection")
      return
    }
    #expect(reason.contains("no subscriber"))
  }

  @Test func aFailedPublishOrAReconnectDecidesNothing() {
    var probe = RedisProbe()
    let first = probe.start()!
    probe.commandFailed(token: first)
    #expect(probe.phase == .idle)
    let second = probe.start()!
    #expect(probe.answered(token: second, receivers: 1) == .await(token: second))
    probe.reset()
    #expect(probe.expired(token: second) == .none, "a probe from before the reconnect means nothing")
    probe.arrived(token: first)
    #expect(probe.phase == .idle)
  }
}
