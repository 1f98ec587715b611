import Testing

@testable import SwitchboardRedis

/// The shard probes' decisions, without Redis: each master gets a probe channel in its own
/// slots, a silent shard is replaced alone, a moved slot moves the channel, and the phases
/// only change along their transitions.
@Suite(.onTestThreads)
struct RedisClusterProbeTests {
  private typealias Node = RedisClusterMap.Node
  private let masters = [7000, 7001, 7002].map { Node(host: "127.0.0.1", port: $0) }

  /// Three masters with `redis-cli --cluster create`'s ranges.
  private func threeMasters() -> RedisClusterMap {
    var map = RedisClusterMap()
    for slot in 0..<RedisKeySlot.count {
      map.assign(slot, to: masters[slot <= 5460 ? 0 : slot <= 10922 ? 1 : 2])
    }
    return map
  }

  /// Every probe confirmed: the three shards probing.
  private func probing(_ map: RedisClusterMap) -> RedisClusterProbe {
    var probe = RedisClusterProbe(prefix: "sb:probe:n1")
    for change in probe.follow(map, nodes: masters) {
      probe.subscribed(change.node, channel: change.subscribe!)
    }
    return probe
  }

  @Test func theTagsReachEverySlot() {
    var slots = Set<Int>()
    for tag in 0..<RedisClusterProbe.tagLimit { slots.insert(RedisKeySlot.slot(of: "{\(tag)}")) }
    #expect(slots.count == RedisKeySlot.count)
  }

  @Test func eachMasterGetsAProbeChannelInItsOwnSlots() throws {
    let map = threeMasters()
    var probe = RedisClusterProbe(prefix: "sb:probe:n1")
    let changes = probe.follow(map, nodes: masters)
    #expect(Set(changes.map(\.node)) == Set(masters))
    for change in changes {
      let channel = try #require(change.subscribe)
      #expect(channel.hasPrefix("sb:probe:n1:{"))
      #expect(map.node(forKey: Array(channel.utf8)) == change.node, "\(channel)")
      #expect(change.unsubscribe == nil)
    }
    #expect(probe.shards.values.allSatisfy { $0.phase == .subscribing })
    #expect(probe.start().isEmpty, "no probe before the channel is confirmed")
    #expect(probe.follow(map, nodes: masters).isEmpty, "the same map changes nothing")
    // A master that serves no slot gets no channel.
    #expect(RedisClusterProbe.channel(prefix: "p", for: Node(host: "127.0.0.1", port: 1), in: map) == nil)
  }

  @Test func aSilentShardIsReplacedAloneAndProbedAgainWhenReady() throws {
    let map = threeMasters()
    var probe = probing(map)
    let due = probe.start()
    #expect(due.count == 3)
    #expect(probe.start().isEmpty, "one probe per shard at a time")
    for (node, channel, token) in due {
      #expect(
        probe.answered(node, channel: channel, token: token, receivers: 1, now: 1) == .await(token: token))
    }
    // Two tokens come back; the second master's does not.
    for (node, channel, token) in due where node != masters[1] {
      probe.arrived(node, channel: channel, token: token)
    }
    let silent = try #require(due.first { $0.node == masters[1] })
    for (node, _, token) in due where node != masters[1] {
      #expect(probe.expired(node, token: token, now: 2) == .none)
    }
    guard case .replace = probe.expired(masters[1], token: silent.token, now: 2) else {
      Issue.record("the silent shard must be replaced")
      return
    }
    #expect(probe.shards[masters[1]]?.phase == .replacing(since: 2))
    #expect(probe.shards[masters[0]]?.phase == .probing)
    #expect(
      Set(probe.start().map(\.node)) == [masters[0], masters[2]], "a shard being replaced is not probed")
    // The replacement goes through backing off (ignored) to ready.
    let backingOff = probe.connection(masters[1], .backingOff(attempt: 1, delay: .zero))
    #expect(!backingOff)
    #expect(probe.shards[masters[1]]?.phase == .replacing(since: 2))
    let replaced = probe.connection(masters[1], .ready(protocolVersion: 3))
    #expect(replaced, "ready again: replaced")
    #expect(probe.shards[masters[1]]?.phase == .probing)
    #expect(probe.start().map(\.node) == [masters[1]])
  }

  @Test func noReceiverReplacesAndALostConnectionDecidesNothing() throws {
    var probe = probing(threeMasters())
    let due = probe.start()
    let first = try #require(due.first { $0.node == masters[0] })
    guard
      case .replace = probe.answered(
        first.node, channel: first.channel, token: first.token, receivers: 0, now: 5)
    else {
      Issue.record("nobody subscribed must replace")
      return
    }
    // Lost by itself: probes pause, and resume once it is back, without counting a replacement.
    let second = try #require(due.first { $0.node == masters[2] })
    let lost = probe.connection(masters[2], .backingOff(attempt: 1, delay: .zero))
    #expect(!lost)
    #expect(probe.shards[masters[2]]?.phase == .lost)
    let late = probe.answered(second.node, channel: second.channel, token: second.token, receivers: 1, now: 6)
    #expect(late == .none)
    let back = probe.connection(masters[2], .ready(protocolVersion: 3))
    #expect(!back)
    #expect(probe.shards[masters[2]]?.phase == .probing)
    // A failed SPUBLISH leaves the shard probing, with a new probe next time.
    let next = try #require(probe.start().first { $0.node == masters[2] })
    probe.commandFailed(masters[2], token: next.token)
    #expect(probe.start().contains { $0.node == masters[2] })
  }

  @Test func aMovedSlotMovesTheProbeChannelAndAMasterWithoutSlotsIsDropped() throws {
    var map = threeMasters()
    var probe = probing(map)
    let old = try #require(probe.shards[masters[0]]?.channel)
    map.assign(RedisKeySlot.slot(of: old), to: masters[1])
    let changes = probe.follow(map, nodes: masters)
    #expect(changes.count == 1)
    let change = try #require(changes.first)
    #expect(change.node == masters[0] && change.unsubscribe == old)
    let fresh = try #require(change.subscribe)
    #expect(fresh != old && map.node(forKey: Array(fresh.utf8)) == masters[0])
    #expect(probe.shards[masters[0]]?.phase == .subscribing)
    // A token of the old channel arriving late changes nothing.
    probe.arrived(masters[0], channel: old, token: 1)
    probe.subscribed(masters[0], channel: fresh)
    #expect(probe.shards[masters[0]]?.phase == .probing)

    // Master 2's slots all go to master 1 (a failover to a new node would look alike).
    for slot in map.slots(of: masters[2]) { map.assign(slot, to: masters[1]) }
    let dropped = probe.follow(map, nodes: masters)
    #expect(dropped.map(\.node) == [masters[2]] && dropped.first?.subscribe == nil)
    #expect(probe.shards[masters[2]] == nil)
  }

  @Test func phasesChangeOnlyAlongTheirTransitions() {
    typealias Phase = RedisClusterProbe.Phase
    let allowed: [(Phase, Phase)] = [
      (.subscribing, .probing), (.subscribing, .lost), (.probing, .subscribing),
      (.probing, .replacing(since: 1)),
      (.probing, .lost), (.replacing(since: 1), .probing), (.lost, .probing),
    ]
    for (from, to) in allowed { #expect(from.allows(to), "\(from) → \(to)") }
    let refused: [(Phase, Phase)] = [
      (.subscribing, .replacing(since: 1)), (.replacing(since: 1), .lost),
      (.replacing(since: 1), .subscribing),
      (.lost, .replacing(since: 1)), (.lost, .subscribing), (.probing, .probing),
    ]
    for (from, to) in refused { #expect(!from.allows(to), "\(from) → \(to)") }
  }
}
