import Foundation
import SwitchboardClient
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// `ChatViewModel.perform(_:)`: the command language through the view model an app shows
/// (the public API only), against a real server: actions both ways, `/who` and `/rooms`
/// answered in the transcript (the model's own members request is not), `/history` as
/// notices, `/join`, `/help`,
/// a wrong command, and the shutdown notice.
@Suite(.onTestThreads, .serialized) struct ChatViewModelCommandTests {
  @Test @MainActor func theModelCarriesOutTypedCommands() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let model = ChatViewModel(url: wsURL(server), name: "viewer", configuration: .forTesting)
    model.start()
    let other = try ChatProbe(wsURL(server), name: "other")
    try await other.waitReady()
    try await eventually("connected, other seen") {
      model.connectionState == .connected && model.members == ["other", "viewer"]
    }
    #expect(!model.messages.contains { $0.text.hasPrefix("in lobby") })  // the model's own request is not shown

    try await model.perform(ChatInput.parse("/me waves"))
    let action = try await other.waitForMessage("waves")
    #expect(action.isAction && action.author == "viewer")
    try await other.client.sendAction("bows")
    try await eventually("other's action, marked") {
      model.messages.contains { $0.text == "bows" && $0.isAction }
    }
    try await model.perform(.message("/literally"))
    _ = try await other.waitForMessage("/literally")

    try await model.perform(ChatInput.parse("/who"))
    try await eventually("the /who answer") {
      model.messages.contains { $0.kind == .notice && $0.text == "in lobby (2): other, viewer" }
    }
    try await model.perform(.rooms)
    try await eventually("the /rooms answer") {
      model.messages.contains { $0.kind == .notice && $0.text == "rooms: lobby (2)" }
    }
    try await model.perform(.help)
    try await model.perform(ChatInput.parse("/frob"))
    try await eventually("help and the problem") {
      model.messages.contains { $0.text == "commands:" }
        && model.messages.contains { $0.text.contains("//TEXT") }
        && model.messages.last?.text == "unknown command /frob (try /help)"
    }
    await #expect(throws: ChatClientError.unsupported) { try await model.perform(.nick("x")) }

    // `/history 2`: the last two as notices; the transcript's messages are not repeated.
    let shown = model.messages.filter { $0.kind != .notice }.count
    let ids = server.hub.history(room: "lobby", last: 2).map(\.id)
    try await model.perform(ChatInput.parse("/history 2"))
    try await eventually("the /history answer") {
      model.messages.suffix(2).map(\.text) == ["[\(ids[0])] * other bows", "[\(ids[1])] viewer: /literally"]
    }
    #expect(model.messages.filter { $0.kind != .notice }.count == shown)

    try await model.perform(ChatInput.parse("/join dev"))
    try await eventually("in dev") { model.room == "dev" && model.connectionState == .connected }
    try await eventually("on the server too") { server.hub.who(room: "dev") == ["viewer"] }

    server.shutdown()
    try await eventually("the going-away notice") {
      model.messages.contains { $0.kind == .notice && $0.text.hasPrefix("server is going away") }
    }
    model.stop()
    await other.stop()
  }
}
