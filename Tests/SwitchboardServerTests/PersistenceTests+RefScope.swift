import Foundation
import SwitchboardIO
import SwitchboardTestSupport
import Testing

/// Without auth a `ref` is scoped by the name asked for and the address the sender connects
/// from: nobody elsewhere can claim it by asking for the same name, and the sender's own
/// re-send after a reconnect is still recognised.
extension PersistenceTests {
  @Test func aStrangerAskingForTheSameNameCannotSuppressAMessageButItsOwnResendIsDeduplicated()
    async throws
  {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let server = try await serve(dataDir: dir)
    defer { server.signal(SIGTERM) }
    let address = try SocketAddress(host: "127.0.0.1", port: server.http)
    func connect(as name: String, from source: String) throws -> WebSocketTestClient {
      let client = try WebSocketTestClient(address, from: try SocketAddress(host: source, port: 0))
      _ = try client.nextJSON(type: "history")
      // Frames are handled in order: the message that follows is sent under this name.
      try client.send(text: #"{"type":"join","data":{"name":"\#(name)"}}"#)
      return client
    }
    func send(_ client: WebSocketTestClient) throws -> Int {
      try client.send(text: #"{"type":"message","data":{"text":"yes","ref":"c5"}}"#)
      return (data(try client.nextJSON(type: "ack"))["id"] as? NSNumber)?.intValue ?? -1
    }
    // Mallory, on another address, asks for "alice" and sends Alice's next ref and text first.
    let mallory = try connect(as: "alice", from: "127.0.0.2")
    let malloryID = try send(mallory)
    // Alice's message is her own: a new id.
    let alice = try connect(as: "alice", from: "127.0.0.1")
    let aliceID = try send(alice)
    #expect(aliceID != malloryID)
    #expect(aliceID > 0)
    // Alice reconnects and re-sends (her ack was lost): the same message, not another.
    let again = try connect(as: "alice", from: "127.0.0.1")
    #expect(try send(again) == aliceID)
  }
}
