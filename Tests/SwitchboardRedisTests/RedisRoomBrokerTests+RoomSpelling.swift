import SwitchboardChat
import SwitchboardTestSupport
import Testing

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
