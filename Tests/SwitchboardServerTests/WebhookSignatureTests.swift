import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// A webhook batch's body and signature, byte for byte, against values Python's `hmac`
/// module computed for the same secret, timestamp and body (the docs/API.md recipe).
@Suite(.onTestThreads)
struct WebhookSignatureTests {
  @Test func theBodyAndItsSignatureAreWhatAReceiverRecomputes() throws {
    let configuration = try WebhookConfiguration(
      targets: [OutboundURL("http://127.0.0.1:1/")],
      secret: Array("webhook-test-secret-of-thirty-two-bytes-or-more".utf8), node: "n\"1")
    let event = WebhookEvent(
      type: .messagePublished, room: "lobby", messageID: 7, author: "ada", text: "say \"hi\"\n", time: 1_700_000_000_000)
    let body = WebhookEvent.batch([event], node: configuration.node, time: 1_700_000_000_000)
    #expect(
      String(decoding: body, as: UTF8.self)
        == #"{"time":1700000000000,"node":"n\"1","events":[{"type":"message.published","room":"lobby","id":7,"author":"ada","text":"say \"hi\"\n","time":1700000000000}]}"#)
    #expect(
      configuration.signature(timestamp: 1_700_000_000, body: body)
        == "sha256=29d27f250c79362ebaa4004aaf819981f75ff71f82f0e20708612d12f87d36bb")
  }

  @Test func aShortSecretOrNoTargetIsRefused() throws {
    #expect(throws: WebhookError.self) {
      try WebhookConfiguration(targets: [OutboundURL("http://h/")], secret: Array("short".utf8), node: "n")
    }
    #expect(throws: WebhookError.self) {
      try WebhookConfiguration(targets: [], secret: [UInt8](repeating: 1, count: 32), node: "n")
    }
  }

  @Test func eventListsAreParsedStrictly() throws {
    #expect(try WebhookEventType.parseList("room.occupied, message.published") == [.roomOccupied, .messagePublished])
    #expect(throws: WebhookError.self) { try WebhookEventType.parseList("room.occupied,") }
    #expect(throws: WebhookError.self) { try WebhookEventType.parseList("member.renamed") }
  }
}
