import Foundation
import SwitchboardClient
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// The slash commands in `switchboard chat --pipe` (the real binary) on every transport that
/// has rooms: `/who`, `/rooms`, `/join`, `/nick`, `/me`, `//text`, `/help`, `/quit`, each
/// carried out as `nc` users' server does, and others' actions printed as `* NAME ACTION`.
@Suite(
  .onTestThreads, .serialized,
  .enabled(ifAvailable: Executables.switchboard != nil, "switchboard binary not built"))
struct ChatCommandLanguageTests {
  @Test(arguments: ["ws", "tcp", "udp"])
  func slashCommandsWorkInPipeMode(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let url = scheme == "ws" ? wsURL(server) : scheme == "tcp" ? tcpURL(server) : udpURL(server)
    let watcher = try ChatProbe(wsURL(server), name: "watcher")
    try await watcher.waitReady()
    let chat = try ChildProcess(Executables.switchboard!, ["chat", url, "--pipe", "--name", "piper"])
    defer { chat.stop() }
    try await eventually("the pipe joined") { server.hub.who(room: "lobby").contains("piper") }

    chat.write("/who\n")
    try await chat.waitForOutput("* in lobby (2): piper, watcher\n")
    chat.write("/me dances\n")
    let action = try await watcher.waitForMessage("dances")
    #expect(action.isAction && action.author == "piper")
    chat.write("//who is there\n")
    #expect(try await watcher.waitForMessage("/who is there").isAction == false)
    try await watcher.client.sendAction("waves")
    try await chat.waitForOutput("* watcher waves\n")
    chat.write("/help\n")
    try await chat.waitForOutput("* commands:\n")
    try await chat.waitForOutput("//TEXT")
    chat.write("/frob\n")
    try await chat.waitForOutput("! unknown command /frob (try /help)\n")

    chat.write("/join dev\n")
    try await eventually("piper moved to dev") {
      server.hub.who(room: "dev").contains("piper") && !server.hub.who(room: "lobby").contains("piper")
    }
    // The client's heartbeat asks `/rooms` too, and a request and a probe written about the
    // same time share their answers (ChatClientState+Queries.swift): one written before the
    // move can answer this, so ask again until the answer is the room's as it is now.
    var asked = 0
    while true {
      chat.write("/rooms\n")
      asked += 1
      do {
        try await chat.waitForOutput("* rooms: dev (1), lobby (1)\n", timeout: .seconds(3))
        break
      } catch  where asked < 5 {}
    }
    chat.write("/nick pip\n")
    try await eventually("renamed in dev") { server.hub.who(room: "dev") == ["pip"] }
    chat.write("in dev as pip\n")
    try await eventually("the message in dev's history") {
      server.hub.history(room: "dev", last: 100).contains { $0.author == "pip" && $0.text == "in dev as pip" }
    }
    #expect(!watcher.messages.contains { $0.text == "in dev as pip" })  // not in the lobby
    chat.write("/quit\nnever sent\n")
    #expect(try await chat.waitForExit() == 0)  // /quit ends it before the end of input
    #expect(!server.hub.history(room: "dev", last: 100).contains { $0.text == "never sent" })
    await watcher.stop()
  }

  /// Every client shows the shutdown notice: a ws `chat` (close 1001 with the reason) as a
  /// tcp one (the server's line) prints `* server is going away: REASON`.
  @Test(arguments: ["ws", "tcp"])
  func theShutdownNoticeIsShown(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let url = scheme == "ws" ? wsURL(server) : tcpURL(server)
    let chat = try ChildProcess(Executables.switchboard!, ["chat", url, "--pipe", "--name", "piper"])
    defer { chat.stop() }
    // Connected all the way (a ws client past its history): its message is in the room.
    chat.write("ready\n")
    try await eventually("the pipe's message stored") {
      server.hub.history(room: "lobby", last: 1).contains { $0.text == "ready" }
    }
    server.shutdown()
    try await chat.waitForOutput("* server is going away: shutting down\n")  // the in-process server's reason
  }
}
