import Foundation
import SwitchboardClient
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// The terminal chat (the real binary in a real terminal, tmux's): the line editor's keys,
/// the history of sent lines, slash commands, actions shown as `* NAME ACTION`, and the
/// status line following the name the server confirmed.
@Suite(
  .onTestThreads, .serialized,
  .enabled(ifAvailable: Executables.switchboard != nil, "switchboard binary not built"),
  .enabled(ifAvailable: Executables.tool("tmux") != nil, "tmux not installed"))
struct ChatTerminalTmuxTests {
  @Test func theLineEditorHistoryAndCommandsInARealTerminal() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let bob = try ChatProbe(wsURL(server), name: "bob")
    try await bob.waitReady()
    let session = "sbchat-editor-\(getpid())"
    // Registered first: a session left behind would keep its tmux server running.
    defer { _ = try? runTool(["tmux", "kill-session", "-t", session]) }
    try runTool([
      "tmux", "new-session", "-d", "-s", session, "-x", "100", "-y", "30",
      "\(Executables.switchboard!) chat \(wsURL(server)) --name ed",
    ])
    let pane = { (try? runTool(["tmux", "capture-pane", "-t", session, "-p"])) ?? "" }
    func keys(_ keys: String...) throws { try runTool(["tmux", "send-keys", "-t", session] + keys) }
    try await eventually("connected as ed") {
      pane().contains("connected to ws://127.0.0.1:\(server.httpAddress!.port)/ as ed")
    }

    // Left, Right/End, typing in the middle.
    try keys("helo", "Left", "l", "End", "!", "Enter")
    #expect(try await bob.waitForMessage("hello!").author == "ed")
    // Up brings the sent line back; Home, then typing at the start.
    try keys("Up", "Home", ">", "Enter")
    _ = try await bob.waitForMessage(">hello!")
    // Ctrl-A/Ctrl-E, Backspace and Delete at the cursor.
    try keys("abc", "C-a", "x", "C-e", "y", "BSpace", "Left", "Left", "DC", "Enter")
    _ = try await bob.waitForMessage("xac")
    // Up twice, Down once: the newer of the two.
    try keys("Up", "Up", "Down", "Enter")
    try await eventually("xac sent again") { bob.messages.filter { $0.text == "xac" }.count == 2 }

    // Commands and actions.
    try keys("/me waves", "Enter")
    let action = try await bob.waitForMessage("waves")
    #expect(action.isAction && action.author == "ed")
    try await bob.client.sendAction("bows")
    try await eventually("bob's action shown as one") { pane().contains("* bob bows") }
    try keys("/who", "Enter")
    try await eventually("the /who answer") { pane().contains("in lobby (2): bob, ed") }
    // The name the server gives (bob is taken in the room) is the one the status line shows.
    try keys("/nick bob", "Enter")
    try await eventually("the confirmed name in the status line") { pane().contains(" as bob (2) ") }

    try keys("C-c")
    try await eventually("the client quits") {
      !((try? runTool(["tmux", "list-sessions"])) ?? "").contains(session)
    }
    await bob.stop()
  }
}
