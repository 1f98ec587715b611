import SwitchboardRESP
import SwitchboardTestSupport
import Testing

@testable import SwitchboardRedis

/// The slot map from `CLUSTER SLOTS` and the redirects, as pure values.
@Suite(.onTestThreads)
struct RedisClusterMapTests {
  private let seed = RedisClusterMap.Node(host: "127.0.0.1", port: 7000)

  private func range(_ first: Int, _ last: Int, _ host: String, _ port: Int) -> RESPValue {
    .array([
      .integer(Int64(first)), .integer(Int64(last)),
      .array([.bulkString(Array(host.utf8)), .integer(Int64(port)), .bulkString(Array("id".utf8))]),
    ])
  }

  @Test func slotsMapToTheirMasters() throws {
    let reply = RESPValue.array([range(0, 5460, "127.0.0.1", 7000), range(5461, 16383, "", 7001)])
    let map = try RedisClusterMap(slots: reply, answeredBy: seed)
    #expect(map.coveredSlots == 16384)
    #expect(map.node(forSlot: 0) == seed)
    #expect(map.node(forSlot: 5461) == RedisClusterMap.Node(host: "127.0.0.1", port: 7001))
    #expect(map.node(forKey: Array("123456789".utf8))?.port == 7001)
    #expect(map.node(forSlot: 16384) == nil)
    #expect(map.slots(of: seed).count == 5461)
  }

  @Test func malformedOrOversizedAnswersAreErrors() {
    let bad: [RESPValue] = [
      .integer(1), .array([.array([.integer(5), .integer(1), .array([.bulkString([]), .integer(1)])])]),
      .array([range(0, 16384, "h", 1)]), .array([range(0, 1, "h", 0)]), .array([.array([.integer(0)])]),
    ]
    for reply in bad {
      #expect(throws: RedisError.self) { try RedisClusterMap(slots: reply, answeredBy: seed) }
    }
    var limits = RedisClusterMap.Limits()
    limits.maxNodes = 1
    let two = RESPValue.array([range(0, 1, "a", 1), range(2, 3, "b", 1)])
    #expect(throws: RedisError.self) { try RedisClusterMap(slots: two, answeredBy: seed, limits: limits) }
    let long = RESPValue.array([range(0, 1, String(repeating: "h", count: 300), 1)])
    #expect(throws: RedisError.self) { try RedisClusterMap(slots: long, answeredBy: seed) }
  }

  @Test func randomAnswersNeverTrap() {
    var random = SeededGenerator(seed: 13)
    func value(_ depth: Int) -> RESPValue {
      switch Int.random(in: 0..<5, using: &random) {
      case 0 where depth < 4:
        .array((0..<Int.random(in: 0..<5, using: &random)).map { _ in value(depth + 1) })
      case 1: .integer(Int64.random(in: -2...17000, using: &random))
      case 2:
        .bulkString(
          (0..<Int.random(in: 0..<8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
      case 3: .null
      default: .integer(Int64.random(in: 0...16383, using: &random))
      }
    }
    for _ in 0..<2000 { _ = try? RedisClusterMap(slots: .array([value(0), value(1)]), answeredBy: seed) }
  }

  @Test func redirectsAreRead() {
    let moved = RedisError.server("MOVED 3999 127.0.0.1:6381")
    #expect(
      RedisClusterMap.redirect(moved, from: seed)
        == .moved(slot: 3999, node: RedisClusterMap.Node(host: "127.0.0.1", port: 6381)))
    #expect(
      RedisClusterMap.redirect(.server("ASK 1 :6390"), from: seed)
        == .ask(slot: 1, node: RedisClusterMap.Node(host: "127.0.0.1", port: 6390)))
    #expect(
      RedisClusterMap.redirect(.server("MOVED 1 [::1]:7000"), from: seed)
        == .moved(slot: 1, node: RedisClusterMap.Node(host: "::1", port: 7000)))
    for text in ["MOVED", "MOVED x 1.2.3.4:5", "MOVED 99999 h:1", "MOVED 1 h:0", "ERR MOVED 1 h:1"] {
      #expect(RedisClusterMap.redirect(.server(text), from: seed) == nil, "\(text)")
    }
  }

  @Test func keylessCommandsHaveNoRoutingKey() {
    #expect(RedisClusterRouter.routingKey(RESPCommand("GET", "k")) == Array("k".utf8))
    #expect(
      RedisClusterRouter.routingKey(RESPCommand("EVALSHA", "abc", "2", "k1", "k2", "a")) == Array("k1".utf8))
    #expect(RedisClusterRouter.routingKey(RESPCommand("EVAL", "return 1", "0")) == nil)
    #expect(RedisClusterRouter.routingKey(RESPCommand("PING")) == nil)
    #expect(RedisClusterRouter.routingKey(RESPCommand("CLUSTER", "SLOTS")) == nil)
  }
}
