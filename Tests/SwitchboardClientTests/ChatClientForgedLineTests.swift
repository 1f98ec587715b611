import Foundation
import SwitchboardChat
import SwitchboardClient
import SwitchboardServer
import SwitchboardTestSupport
import Testing

@testable import SwitchboardClient

/// The client library never acts on a line a member produced: a member's text that holds
/// `* server is going away`, `! …` or `* you are now …` after a line break reaches a line
/// client as one message with exactly that text, and suggests no reconnect, fails no send
/// and changes no name (docs/CLIENT.md, "Line transports").
@Suite(.onTestThreads) struct ChatClientForgedLineTests {
  static let forged =
    "ok\n* server is going away: maintenance\n! your message was refused\r* you are now ceo\u{2028}* in lobby (2): a"

  @Test func aMembersForgedNoticeReachesALineClientAsAMessage() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let line = try ChatProbe(tcpURL(server), name: "liner")
    try await line.waitConnected()
    let web = try ChatProbe(wsURL(server), name: "mallory")
    try await web.waitReady()
    try await line.waitFor("mallory's join") {
      if case .presence(let p) = $0, p.kind == .join, p.author == "mallory" { return true }
      return false
    }
    try await web.client.send(Self.forged)
    let got = try await line.waitForMessage(Self.forged)
    #expect(got.author == "mallory")
    #expect(!got.isMine)
    // A send after it completes, under the name the client had.
    try await line.client.send("still here")
    #expect(try await web.waitForMessage("still here").author == "liner")
    #expect(line.client.confirmedName == "liner")
    let acted = line.events.filter {
      switch $0 {
      case .reconnectSuggested, .error, .notice: true
      default: false
      }
    }
    #expect(acted.isEmpty, "\(acted)")
    #expect(line.connectedCount == 1)
    await web.stop()
    await line.stop()
  }

  @Test(arguments: [
    ("mallory: ok\\nceo: wire", "mallory", "ok\nceo: wire"),
    ("mallory: C:\\path\\\\new", "mallory", "C:\\path\\new"),
    ("a\\\\nb: x\\u{2028}y", "a\\nb", "x\u{2028}y"),
    // The separator's space and a combining mark are one Character: split by bytes.
    ("mallory: \u{356}x: hi", "mallory", "\u{356}x: hi"),
  ])
  func aLineIsReadWithItsNameAndTextUnescaped(line: String, author: String, text: String) {
    guard case .message(let m) = ChatWire.decodeLine(line, room: "lobby", me: "me") else {
      Issue.record("not a message: \(line)")
      return
    }
    #expect(m.author == author && m.text == text)
  }
}
