import Foundation
import SwitchboardClient
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `switchboard chat --pipe` across a `switchboard serve` restart on the same ports and
/// data directory, while a sender keeps sending: each message is printed exactly once, since
/// a resume must replay only what was missed (docs/CLIENT.md, "`switchboard chat`").
@Suite(.onTestThreads, .serialized, .enabled(ifAvailable: ChatBinary.path != nil, "switchboard binary not built"))
struct ChatPipeRestartTests {
  /// Starts `serve` on `ports` (TCP, HTTP) over `dataDir`; retries the same ports for a
  /// while, since a restart must come back where the clients reconnect to.
  private func serve(dataDir: String, ports: [Int]) async throws -> ChildProcess {
    let deadline = ContinuousClock.now + .seconds(10)
    while true {
      let server = try ChildProcess(
        ChatBinary.path!,
        [
          "serve", "--host", "127.0.0.1", "--tcp-port", "\(ports[0])", "--udp-port", "0", "--http-port",
          "\(ports[1])", "--no-advertise", "--data-dir", dataDir, "--history", "5000",
        ])
      do {
        try await server.waitForOutput("Switchboard is running")
        return server
      } catch {
        server.stop()
        guard ContinuousClock.now < deadline, server.stderr.contains("Address already in use") else { throw error }
        try await Task.sleep(for: .milliseconds(50))
      }
    }
  }

  @Test func aPipeAcrossAServerRestartPrintsEachMessageOnce() async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let ports = try freePorts(2)
    var server = try await serve(dataDir: dir, ports: ports)
    defer { server.stop() }
    let url = "ws://127.0.0.1:\(ports[1])/"
    let chat = try ChildProcess(ChatBinary.path!, ["chat", url, "--room", "lobby", "--name", "piper", "--pipe"])
    defer { chat.stop() }
    let sender = try ChatProbe(url, name: "sender", room: "lobby")
    try await sender.waitReady()
    // The pipe is in the room once it prints what the sender says.
    var joined = false
    for k in 0..<30 where !joined {
      try await sender.client.send("hello-\(k)")
      joined = (try? await chat.waitForOutput("sender: hello-\(k)\n", timeout: .seconds(1))) != nil
    }
    try #require(joined, "the pipe printed none of 30 messages")
    let total = 300
    for i in 1...total / 2 { try await sender.client.send("m-\(i)") }
    server.signal(SIGTERM)
    #expect(try await server.waitForExit() == 0)
    server = try await serve(dataDir: dir, ports: ports)
    for i in total / 2 + 1...total { try await sender.client.send("m-\(i)") }
    try await chat.waitForOutput("sender: m-\(total)\n", timeout: .seconds(60))
    await sender.stop()
    chat.closeInput()
    #expect(try await chat.waitForExit() == 0)
    var counts: [String: Int] = [:]
    for line in chat.stdout.split(separator: "\n") { counts[String(line), default: 0] += 1 }
    let repeated = counts.filter { $0.value > 1 }.keys.sorted()
    #expect(repeated.isEmpty, "printed more than once: \(repeated.prefix(10))")
    for i in 1...total { #expect(counts["sender: m-\(i)"] == 1, "m-\(i)") }
  }
}
