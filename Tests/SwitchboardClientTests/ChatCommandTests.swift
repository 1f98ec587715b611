import Foundation
import SwitchboardClient
import SwitchboardServer
import Testing
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#endif

@Suite(.onTestThreads, .serialized, .enabled(ifAvailable: Executables.switchboard != nil, "switchboard binary not built"))
struct ChatCommandTests {
  @Test func pipeModeSendsStdinAndPrintsWhatArrives() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let watcher = try ChatProbe(wsURL(server), name: "watcher")
    try await watcher.waitReady()
    let chat = try ChildProcess(Executables.switchboard!, ["chat", wsURL(server), "--name", "piper"])
    defer { chat.stop() }
    chat.write("first line\nsecond line\n")
    #expect(try await watcher.waitForMessage("first line").author == "piper")
    _ = try await watcher.waitForMessage("second line")
    try await watcher.client.send("to the pipe")
    try await chat.waitForOutput("watcher: to the pipe\n")
    #expect(!chat.stdout.contains("piper: first line"))  // its own messages are not echoed
    chat.closeInput()
    #expect(try await chat.waitForExit() == 0)  // it exits at the end of its input
    await watcher.stop()
  }

  /// Over UDP the pipe proves its address on its own before it is a member (a server sends
  /// an unproven address no room traffic and publishes nothing of it).
  @Test func pipeModeOverUDPProvesItsAddressSendsAndReceives() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let watcher = try ChatProbe(wsURL(server), name: "watcher")
    try await watcher.waitReady()
    let chat = try ChildProcess(Executables.switchboard!, ["chat", udpURL(server), "--name", "dgram"])
    defer { chat.stop() }
    chat.write("over udp\n")
    #expect(try await watcher.waitForMessage("over udp").author == "dgram")
    try await watcher.client.send("to the udp pipe")
    try await chat.waitForOutput("watcher: to the udp pipe\n")
    #expect(!chat.stdout.contains("/ok"))  // the proof is the transport's, not shown
    chat.closeInput()
    #expect(try await chat.waitForExit() == 0)
    await watcher.stop()
  }

  /// A WebSocket member's text with line breaks and an escape sequence is one line of the
  /// pipe's output, escaped as the line dialect escapes it: no forged `ceo: …` or
  /// `* server …` line, no control reaching the terminal.
  @Test func pipeModePrintsAMessageWithLineBreaksAsOneEscapedLine() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let mallory = try ChatProbe(wsURL(server), name: "mallory")
    try await mallory.waitReady()
    let chat = try ChildProcess(Executables.switchboard!, ["chat", wsURL(server), "--name", "piper"])
    defer { chat.stop() }
    try await eventually("the pipe joined") { server.hub.who(room: "lobby").contains("piper") }
    try await mallory.client.send("ok\nceo: wire $10k\r* server is going away: x\u{1B}[2K")
    try await mallory.client.send("end")
    try await chat.waitForOutput("mallory: end\n")
    #expect(chat.stdout.contains(#"mallory: ok\nceo: wire $10k\r* server is going away: x\u{1b}[2K"# + "\nmallory: end\n"))
    #expect(!chat.stdout.contains("\nceo: ") && !chat.stdout.contains("\r") && !chat.stdout.contains("\u{1B}"))
    chat.closeInput()
    #expect(try await chat.waitForExit() == 0)
    await mallory.stop()
  }

  /// What a pipe missed while reconnecting is printed once the client resumes (the soak
  /// found the replay dropped). The message is sent while the pipe cannot reach the room:
  /// the same data directory served where the pipe cannot reach it, so its resume must fetch it.
  @Test func pipeModePrintsTheMessagesAReconnectReplays() async throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    func serve() throws -> ChatServer {
      try startServer { $0.broker = sqliteBroker(directory: directory) }
    }
    var server = try serve()
    // The pipe's one address: each server binds a new port, and the proxy sends new
    // connections to the one the pipe should reach.
    let proxy = try StallingProxy(upstreamPort: server.httpAddress!.port)
    defer { proxy.close() }
    let http = proxy.port
    let chat = try ChildProcess(Executables.switchboard!, ["chat", "ws://127.0.0.1:\(http)/", "--name", "piper"])
    defer { chat.stop() }
    try await eventually("the pipe joined") { server.hub.who(room: "lobby").contains("piper") }
    let sender = try ChatProbe(wsURL(server), name: "sender")
    try await sender.waitReady()
    try await sender.client.send("before")
    try await chat.waitForOutput("sender: before\n")
    await sender.stop()
    server.shutdown()
    server = try serve()  // the proxy still points at the port of the server just shut down
    let offline = try ChatProbe(wsURL(server), name: "sender")
    try await offline.waitReady()
    try await offline.client.send("while you were away")
    _ = try await offline.waitForMessage("while you were away")
    await offline.stop()
    server.shutdown()
    server = try serve()
    proxy.redirect(to: server.httpAddress!.port)
    defer { server.shutdown() }
    try await chat.waitForOutput("sender: while you were away\n", timeout: .seconds(30))
    #expect(chat.stdout.components(separatedBy: "sender: before\n").count == 2)  // not printed twice
  }

  @Test(.enabled(ifAvailable: Executables.tool("tmux") != nil, "tmux not installed"))
  func interactiveClientInTmux() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let bob = try ChatProbe(wsURL(server), name: "bob")
    try await bob.waitReady()
    let session = "sbchat-test-\(getpid())"
    // Registered first: a session left behind would keep its tmux server running.
    defer { _ = try? runTool(["tmux", "kill-session", "-t", session]) }
    try runTool([
      "tmux", "new-session", "-d", "-s", session, "-x", "100", "-y", "30",
      "\(Executables.switchboard!) chat \(wsURL(server))",
    ])
    let pane = { (try? runTool(["tmux", "capture-pane", "-t", session, "-p"])) ?? "" }
    try await eventually("the name prompt") { pane().contains("name:") }
    try runTool(["tmux", "send-keys", "-t", session, "alice", "Enter"])
    try await eventually("connected status") { pane().contains("connected to ws://127.0.0.1") }
    try runTool(["tmux", "send-keys", "-t", session, "hello from tmux", "Enter"])
    #expect(try await bob.waitForMessage("hello from tmux").author == "alice")
    try await bob.client.send("hi alice, bob here")
    try await eventually("the reply rendered") { pane().contains("bob: hi alice, bob here") }
    #expect(pane().contains("alice: hello from tmux"))
    // Restart elsewhere: the status line counts down to the next attempt.
    server.shutdown()
    try await eventually("a reconnect countdown") { pane().contains("reconnecting in") }
    try runTool(["tmux", "send-keys", "-t", session, "C-c"])
    try await eventually("the client quits") {
      !((try? runTool(["tmux", "list-sessions"])) ?? "").contains(session)
    }
    await bob.stop()
  }
}
