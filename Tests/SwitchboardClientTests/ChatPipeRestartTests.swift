import Foundation
import SwitchboardClient
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `switchboard chat --pipe` across a `switchboard serve` restart on the same data directory
/// (behind a proxy, so the address stays the same), while a sender keeps sending: each message
/// is printed exactly once, since a resume must replay only what was missed (docs/CLIENT.md,
/// "`switchboard chat`").
@Suite(.onTestThreads, .serialized, .enabled(ifAvailable: Executables.switchboard != nil, "switchboard binary not built"))
struct ChatPipeRestartTests {
  /// Starts `serve` over `dataDir` (HTTP only, on a port the kernel chose).
  private func serve(dataDir: String) async throws -> ServeProcess {
    try await ServeProcess.start(["--data-dir", dataDir, "--history", "5000"], listeners: [.http])
  }

  @Test func aPipeAcrossAServerRestartPrintsEachMessageOnce() async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var server = try await serve(dataDir: dir)
    defer { server.stop() }
    // The clients reconnect to one address; the restarted server binds a new port, and
    // the proxy sends their new connections there.
    let proxy = try StallingProxy(upstreamPort: server.http)
    defer { proxy.close() }
    let url = "ws://127.0.0.1:\(proxy.port)/"
    let chat = try ChildProcess(Executables.switchboard!, ["chat", url, "--room", "lobby", "--name", "piper", "--pipe"])
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
    server = try await serve(dataDir: dir)
    proxy.redirect(to: server.http)
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
