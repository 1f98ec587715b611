import Foundation
import SwitchboardClient
import SwitchboardServer
import Testing
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The `switchboard` binary next to the test bundle (built with `--build-tests`), or
/// `$SWITCHBOARD_BIN`.
enum ChatBinary {
  static var path: String? {
    if let env = ProcessInfo.processInfo.environment["SWITCHBOARD_BIN"], FileManager.default.isExecutableFile(atPath: env) {
      return env
    }
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = dir.appendingPathComponent("switchboard").path
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
      dir = dir.deletingLastPathComponent()
    }
    return nil
  }
  static var tmux: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }
}

/// Runs a command to completion, returning its stdout.
///
/// Spawned with `posix_spawn` and reaped with `waitpid`, output through a file:
/// `tmux new-session` may start the tmux server, a daemon that inherits the child's
/// descriptors, and Foundation's `Process` would then wait for it for ever.
@discardableResult
func runTool(_ path: String, _ arguments: [String]) throws -> String {
  let file = "/tmp/sbchat-tool-\(getpid())-\(UInt64.random(in: 0 ... .max))"
  defer { unlink(file) }
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 1, file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
  let argv = ([path] + arguments).map { strdup($0) } + [nil]
  defer { for p in argv { free(p) } }
  var pid: pid_t = 0
  let rc = posix_spawn(&pid, path, &actions, nil, argv, environ)
  guard rc == 0 else { throw TestFailure("posix_spawn \(path): \(rc)") }
  var status: Int32 = 0
  while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
  return (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
}

@Suite(.serialized, .enabled(if: ChatBinary.path != nil, "switchboard binary not built")) struct ChatCommandTests {
  @Test func pipeModeSendsStdinAndPrintsWhatArrives() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let watcher = try ChatProbe(wsURL(server), name: "watcher")
    try await watcher.waitReady()
    let p = Process()
    p.executableURL = URL(fileURLWithPath: ChatBinary.path!)
    p.arguments = ["chat", wsURL(server), "--name", "piper"]
    let input = Pipe()
    let output = Pipe()
    p.standardInput = input
    p.standardOutput = output
    p.standardError = FileHandle.nullDevice
    let collected = ChatByteLog()
    output.fileHandleForReading.readabilityHandler = { handle in
      let data = handle.availableData
      collected.bytes.withLock { $0.append(contentsOf: data) }
    }
    try runSerialized(p)
    defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
    input.fileHandleForWriting.write(Data("first line\nsecond line\n".utf8))
    #expect(try await watcher.waitForMessage("first line").author == "piper")
    _ = try await watcher.waitForMessage("second line")
    try await watcher.client.send("to the pipe")
    try await eventually("the pipe prints it") { collected.text.contains("watcher: to the pipe\n") }
    #expect(!collected.text.contains("piper: first line"))  // its own messages are not echoed
    try input.fileHandleForWriting.close()
    try await eventually("exit at EOF") { !p.isRunning }
    #expect(p.terminationStatus == 0)
    output.fileHandleForReading.readabilityHandler = nil
    await watcher.stop()
  }

  @Test(.enabled(if: ChatBinary.tmux, "tmux not installed"))
  func interactiveClientInTmux() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let bob = try ChatProbe(wsURL(server), name: "bob")
    try await bob.waitReady()
    let session = "sbchat-test-\(getpid())"
    try runTool("/usr/bin/tmux", ["new-session", "-d", "-s", session, "-x", "100", "-y", "30", "\(ChatBinary.path!) chat \(wsURL(server))"])
    defer { _ = try? runTool("/usr/bin/tmux", ["kill-session", "-t", session]) }
    let pane = { (try? runTool("/usr/bin/tmux", ["capture-pane", "-t", session, "-p"])) ?? "" }
    try await eventually("the name prompt") { pane().contains("name:") }
    try runTool("/usr/bin/tmux", ["send-keys", "-t", session, "alice", "Enter"])
    try await eventually("connected status") { pane().contains("connected to ws://127.0.0.1") }
    try runTool("/usr/bin/tmux", ["send-keys", "-t", session, "hello from tmux", "Enter"])
    #expect(try await bob.waitForMessage("hello from tmux").author == "alice")
    try await bob.client.send("hi alice, bob here")
    try await eventually("the reply rendered") { pane().contains("bob: hi alice, bob here") }
    #expect(pane().contains("alice: hello from tmux"))
    // Restart elsewhere: the status line counts down to the next attempt.
    server.shutdown()
    try await eventually("a reconnect countdown") { pane().contains("reconnecting in") }
    try runTool("/usr/bin/tmux", ["send-keys", "-t", session, "C-c"])
    try await eventually("the client quits") {
      !((try? runTool("/usr/bin/tmux", ["list-sessions"])) ?? "").contains(session)
    }
    await bob.stop()
  }
}
