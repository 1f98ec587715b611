import Foundation
import SwitchboardClient
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// `/history N` in `switchboard chat --pipe` (the real binary): the room's last N messages
/// printed as `nc` shows them, `[ID] AUTHOR: TEXT`, escaped as every line of the pipe is.
@Suite(
  .onTestThreads, .serialized,
  .enabled(ifAvailable: Executables.switchboard != nil, "switchboard binary not built"))
struct ChatHistoryCommandTests {
  @Test(arguments: ["ws", "tcp"])
  func historyPrintsTheLastMessagesAsNcDoes(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let bea = try ChatProbe(wsURL(server), name: "bea")
    try await bea.waitReady()
    var ids: [UInt64] = []
    for text in ["one", "two", "three\nand more"] { ids.append(try #require(try await bea.client.send(text))) }
    let chat = try ChildProcess(
      Executables.switchboard!, ["chat", scheme == "ws" ? wsURL(server) : tcpURL(server), "--pipe", "--name", "piper"])
    defer { chat.stop() }
    try await eventually("the pipe joined") { server.hub.who(room: "lobby").contains("piper") }

    chat.write("/history 2\n")
    try await chat.waitForOutput("[\(ids[1])] bea: two\n[\(ids[2])] bea: three\\nand more\n")
    chat.write("/history 0\n")
    try await chat.waitForOutput("[\(ids[2])] bea: three\\nand more\n[\(ids[2])] bea: three\\nand more\n")
    chat.write("/history x\n")
    try await chat.waitForOutput("! usage: /history [N]\n")
    chat.closeInput()
    #expect(try await chat.waitForExit() == 0)
    await bea.stop()
  }
}
