import Foundation
import SwitchboardIO
import SwitchboardTestSupport
import Testing

/// Room names in one spelling (NFC) from the edge to the disk, with the real binary.
extension PersistenceTests {
  @Test func canonicallyEquivalentRoomNamesAreOneRoomInTheHubAndInTheStore() async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var server = try await serve(dataDir: dir)
    // `\u{212A}ey` (KELVIN SIGN) in the WebSocket URL opens the room, so its spelling would
    // be the one the store sees; then `Key` on the line port is the same room.
    let kelvin = try WebSocketTestClient(
      SocketAddress(host: "127.0.0.1", port: server.http), path: "/rooms/%E2%84%AAey")
    _ = try kelvin.nextJSON(type: "history")
    try kelvin.send(text: #"{"type":"message","data":{"text":"from kelvin","ref":"k1"}}"#)
    _ = try kelvin.nextJSON(type: "ack")
    let line = try LineClient(SocketAddress(host: "127.0.0.1", port: server.tcp))
    try line.join(as: "bob")
    try line.sendLine("/join Key")
    try line.expectLine("* you are now in Key (2 members)")
    try kelvin.send(text: #"{"type":"message","data":{"text":"live","ref":"k2"}}"#)
    try line.expectLine { $0.hasSuffix(": live") }
    server.signal(SIGTERM)
    _ = try await server.waitForExit()

    // After a restart the store has it under the one spelling both names map to.
    server = try await serve(dataDir: dir)
    defer { server.signal(SIGTERM) }
    let reader = try WebSocketTestClient(SocketAddress(host: "127.0.0.1", port: server.http), path: "/rooms/Key?since=0")
    let history = try reader.nextJSON(type: "history")
    let texts = (history["data"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
    #expect(texts.contains("from kelvin"), "history of Key: \(texts)")
  }
}
