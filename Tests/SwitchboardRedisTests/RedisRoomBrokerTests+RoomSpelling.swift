import SwitchboardChat
import SwitchboardTestSupport
import Testing

@testable import SwitchboardRedis

/// Room names reach Redis in one spelling (NFC): two nodes whose members spell a room
/// differently share its keys and its channel.
extension RedisRoomBrokerTests {
  @Test func canonicallyEquivalentRoomNamesShareOneRoomAcrossNodes() async throws {
    let server = try RedisServer()
    let nodes = try (0..<2).map { _ in try BrokerNode(server) }
    defer { nodes.forEach { $0.stop() } }
    // KELVIN SIGN on one node, LATIN CAPITAL K on the other.
    let kelvin = try nodes[0].join("kelvin", room: "\u{212A}ey")
    let latin = try nodes[1].join("latin", room: "Key")
    nodes[0].publish(kelvin, "one spelling")
    try await eventually("the other node's member has it") {
      latin.messages.map(\.text) == ["one spelling"]
    }
    #expect(latin.messages.first.map { Array($0.room.unicodeScalars) } == Array("Key".unicodeScalars))
    #expect(nodes[1].who(room: "Key") == ["kelvin", "latin"])
  }
}

/// What arrives on a channel finds its room by the name the channel carries: a message for
/// a room this node does not have open is dropped and counted, and delivery goes on.
extension RedisRoomBrokerTests {
  @Test func aPubSubMessageForARoomThisNodeDoesNotHaveIsDroppedAndDeliveryGoesOn() async throws {
    let server = try RedisServer()
    let node = try BrokerNode(server)
    defer { node.stop() }
    let member = try node.join("ann")
    let subscriber = try #require(node.broker.connections.withLock { $0?.subscriber })
    // The node's pub/sub connection also listens on a room it never opened, and on a
    // channel that is no room's at all.
    let elsewhere = RedisRoomKeys(room: "elsewhere").channel
    try await subscriber.subscribe([elsewhere, "sb:{broken%4}:ch"])
    let payload = "not even a payload"
    _ = try server.cli("PUBLISH", elsewhere, payload)
    _ = try server.cli("PUBLISH", "sb:{broken%4}:ch", payload)
    try await eventually("both dropped and counted") { node.broker.strayMessages == 2 }
    node.publish(member, "still here")
    try await eventually("the open room still delivers") { member.messages.map(\.text) == ["still here"] }
    #expect(node.broker.strayMessages == 2)
  }

  @Test func aChannelNamesItsRoom() {
    for room in ["lobby", "Key", "a b:{c}", "caf\u{E9} \u{1F600}", ""] {
      #expect(RedisRoomKeys.room(channel: RedisRoomKeys(room: room).channel) == room)
    }
    for channel in ["sb:probe:n1", "sb:{x}:log", "sb:{%4}:ch", "sb:{%zz}:ch", "sb:{", "}:ch", "sb:}:ch"] {
      #expect(RedisRoomKeys.room(channel: channel) == nil, "\(channel)")
    }
  }
}
