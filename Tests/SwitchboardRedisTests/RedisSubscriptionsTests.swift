import SwitchboardIO
import SwitchboardTestSupport
import Testing

@testable import SwitchboardRedis

/// The subscriber's bookkeeping without a socket: confirmations matched to requests, what a
/// lost connection does to them, and what a new connection still has to send.
@Suite(.onTestThreads) struct RedisSubscriptionsTests {
  typealias Outcomes = Locked<[String]>

  static func recorder(_ outcomes: Outcomes, _ name: String) -> RedisSubscriptions.Completion {
    { result in
      let text = (try? result.get()) != nil ? "ok" : "failed"
      outcomes.withLock { $0.append("\(name) \(text)") }
    }
  }

  @Test func aRequestCompletesWhenEveryNameIsConfirmedInOrderOfItsKind() {
    var subscriptions = RedisSubscriptions()
    let outcomes = Outcomes([])
    let far = Deadline.now().adding(.seconds(60))
    subscriptions.add(.channel, ["a", "b"])
    subscriptions.expect(.channel, subscribes: true, count: 2, deadline: far, Self.recorder(outcomes, "ab"))
    subscriptions.add(.pattern, ["p.*"])
    subscriptions.expect(.pattern, subscribes: true, count: 1, deadline: far, Self.recorder(outcomes, "p"))
    // A pattern's confirmation completes its own request, though a channel request is older.
    subscriptions.confirm("psubscribe")?(.success(()))
    #expect(outcomes.value == ["p ok"])
    #expect(subscriptions.confirm("subscribe") == nil, "one of two")
    subscriptions.confirm("subscribe")?(.success(()))
    #expect(outcomes.value == ["p ok", "ab ok"])
    #expect(subscriptions.confirm("subscribe") == nil, "a confirmation nobody waits for is ignored")
  }

  @Test func aLostConnectionKeepsSubscriptionsWaitingAndFinishesUnsubscriptions() {
    var subscriptions = RedisSubscriptions()
    let outcomes = Outcomes([])
    let far = Deadline.now().adding(.seconds(60))
    subscriptions.add(.channel, ["a"])
    subscriptions.expect(.channel, subscribes: true, count: 1, deadline: far, Self.recorder(outcomes, "sub"))
    subscriptions.remove(.channel, ["old"])
    subscriptions.expect(
      .channel, subscribes: false, count: 1, deadline: far, Self.recorder(outcomes, "unsub"))
    for (completion, result) in subscriptions.connectionLost(.connectionLost("gone")) { completion(result) }
    #expect(outcomes.value == ["unsub ok"], "the next connection will not subscribe to it anyway")
    #expect(!subscriptions.hasExpired(Deadline.now().adding(.seconds(120))), "no confirmations are due now")
    for completion in subscriptions.takeWaiting() { completion(.success(())) }
    #expect(outcomes.value == ["unsub ok", "sub ok"])
  }

  @Test func waitingRequestsExpireAtTheirDeadline() {
    var subscriptions = RedisSubscriptions()
    let outcomes = Outcomes([])
    let now = Deadline.now()
    subscriptions.wait(until: now.adding(.milliseconds(10)), Self.recorder(outcomes, "soon"))
    subscriptions.wait(until: now.adding(.seconds(60)), Self.recorder(outcomes, "later"))
    for completion in subscriptions.expireWaiting(now.adding(.seconds(1))) {
      completion(.failure(.timeout("t")))
    }
    #expect(outcomes.value == ["soon failed"])
    #expect(subscriptions.takeWaiting().count == 1)
  }

  @Test func aNewConnectionSendsOnlyWhatChangedSinceItWasAsked() {
    var subscriptions = RedisSubscriptions()
    subscriptions.add(.channel, ["a", "b"])
    subscriptions.markSent(.channel, ["a", "b"], subscribed: true)
    // During the handshake: one more channel, one fewer, and a shard channel.
    subscriptions.add(.channel, ["c"])
    subscriptions.remove(.channel, ["a"])
    subscriptions.add(.shard, ["s"])
    let (subscribe, unsubscribe) = subscriptions.differences()
    #expect(subscribe.map { "\($0.0):\($0.1)" } == ["channel:[\"c\"]", "shard:[\"s\"]"])
    #expect(unsubscribe.map { "\($0.0):\($0.1)" } == ["channel:[\"a\"]"])
    // After a loss nothing counts as sent: everything is to be subscribed again.
    _ = subscriptions.connectionLost(.connectionLost("gone"))
    #expect(subscriptions.differences().subscribe.flatMap(\.1).sorted() == ["b", "c", "s"])
  }

  /// One `SSUBSCRIBE` takes channels of one slot only (a cluster answers `CROSSSLOT`), so a
  /// connection's shard channels go out one command per slot; other kinds in one.
  @Test func shardChannelsAreSentOneCommandPerSlot() {
    let names = ["sb:{a}:ch", "sb:{b}:ch", "sb:{a}:other", "sb:probe:n:{0}"]
    let batches = RedisSubscriptions.Kind.shard.batches(names)
    #expect(batches.flatMap { $0 }.sorted() == names.sorted())
    for batch in batches { #expect(Set(batch.map { RedisKeySlot.slot(of: $0) }).count == 1, "\(batch)") }
    #expect(batches.count == Set(names.map { RedisKeySlot.slot(of: $0) }).count)
    #expect(RedisSubscriptions.Kind.channel.batches(names) == [names])
    #expect(RedisSubscriptions.Kind.shard.batches([]).isEmpty)
  }
}
