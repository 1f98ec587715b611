import Foundation
import SwitchboardServer
import SwitchboardTestSupport
import Testing

@testable import SwitchboardClient

/// ``ChatClient/Configuration/token`` and ``ChatClient/LineSendCompletion/handled``: where
/// the token goes on each dialect, and the `/who` reply that confirms a line send.
@Suite(.onTestThreads)
struct ChatClientTokenTests {
  @Test func theTokenIsAQueryItemOfTheWebSocketURL() throws {
    let endpoint = try ChatEndpoint("wss://chat.example:8443/?token=old&x=1")
    let url = endpoint.webSocketURL(room: "dev", name: "ada", since: nil, epoch: nil, token: "a b")
    #expect(url == "wss://chat.example:8443/rooms/dev?x=1&name=ada&token=a%20b")
    // Without a token the URL's own `token` item is kept; an empty name is left out.
    #expect(endpoint.webSocketURL(room: nil, name: " ", since: nil, epoch: nil) == "wss://chat.example:8443/?token=old&x=1")
  }

  @Test(arguments: [
    ("* in lobby (1): ada", true), ("* in dev-2 (12): a, b", true), ("* in lobby (3)", true),
    ("* in joined the room", false), ("* ada has joined", false), ("* in lobby (x): a", false),
    ("* rooms: lobby (1)", false),
  ])
  func theWhoReplyIsRecognised(line: String, isReply: Bool) {
    #expect(ChatClientState.isConfirmation(line) == isReply)
  }

  @Test func aHandledLineSendCompletesOnTheServersReply() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let watcher = try ChatProbe(wsURL(server), name: "watcher")
    try await watcher.waitReady()
    var configuration = ChatClient.Configuration.forTesting
    configuration.lineSendCompletion = .handled
    let sender = try ChatProbe(tcpURL(server), name: "ada", configuration: configuration)
    try await sender.waitConnected()
    for i in 1...3 { try await sender.client.send("handled \(i)") }
    // The server published each before answering the `/who` after it.
    for i in 1...3 { #expect(try await watcher.waitForMessage("handled \(i)").author == "ada") }
    // The sender's own copies are events too, reported on the client's task: wait for them.
    try await eventually("the sender's own three messages") {
      sender.events.filter { if case .message(let m) = $0 { m.isMine } else { false } }.count == 3
    }
    #expect(!sender.events.contains { if case .notice(let n) = $0 { n.hasPrefix("* in ") } else { false } })
    await sender.stop()
    await watcher.stop()
  }
}
