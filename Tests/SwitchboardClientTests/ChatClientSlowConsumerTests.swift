import Foundation
import SwitchboardClient
import SwitchboardServer
import SwitchboardTestSupport
import SwitchboardWebSocket
import Testing

/// The client side of the slow-consumer contract: a `ChatClient` the server closes with
/// 1008 "slow consumer" reconnects by itself and gets what it missed from history, each
/// message once, in order.
@Suite(.onTestThreads)
struct ChatClientSlowConsumerTests {
  @Test(.enabled(ifAvailable: PythonPeer.hasPython, "needs python3"))
  func aClientDroppedAsTooSlowResumesFromHistory() async throws {
    let server = try startServer { c in
      c.maxBufferedPerConnection = 16 * 1024
      c.slowConsumerFarewellTime = .seconds(15)
      c.historyLimit = 25_000
      c.historyOnJoin = 25_000
      // Ada's stalled connection sends nothing, so the keepalive would ping it and close it
      // one tick later (30 s, then 60 s) — before the verdict when a loaded machine makes the
      // flood take minutes: then no slow-consumer verdict comes.
      c.webSocketPingInterval = .seconds(600)
    }
    defer { server.shutdown() }
    // The stalling proxy (Tests/peers/stall_proxy.py) stands between ada and the server:
    // while it stalls, ada's connection is one that does not read.
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("peers/stall_proxy.py").path
    let proxy = try ChildProcess(command: ["python3", "-u", script, "\(server.httpAddress!.port)"])
    defer { proxy.stop() }
    let port = try await proxy.waitForLine { line -> Int? in line.hasPrefix("port ") ? Int(line.dropFirst(5)) : nil }
    let ada = try ChatProbe("ws://127.0.0.1:\(port)/", name: "ada")
    let bob = try ChatProbe(wsURL(server), name: "bob")
    try await ada.waitReady()
    try await bob.waitReady()
    try await bob.client.send("before")
    _ = try await ada.waitForMessage("before")

    proxy.write("stall\n")
    try await proxy.waitForOutput("stalled")
    let payload = String(repeating: "z", count: 1000)
    var sent = 1
    while server.metrics.slowWebSocketConsumers.load(ordering: .relaxed) == 0 {
      // The kernel's buffers between the server and the stalled proxy fill first (several
      // MiB on loopback, as the kernel sizes them); 5,000 messages once fell short in a
      // loaded run.
      guard sent < 20_000 else { throw TestFailure("no slow-consumer verdict after \(sent) messages") }
      _ = try await bob.client.send("\(sent) \(payload)")
      sent += 1
    }
    proxy.write("resume\n")
    _ = try await ada.waitFor("the slow-consumer close") {
      if case .disconnected(_, let code) = $0, code == .policyViolation { return true }
      return false
    }
    try await ada.waitReady(count: 2)
    try await bob.client.send("marker")
    _ = try await ada.waitForMessage("marker")
    let ids = ada.messages.compactMap(\.id)
    #expect(ids == Array(1...UInt64(sent + 1)), "each message once, in order")
    #expect(!ada.events.contains { if case .gap = $0 { true } else { false } })
    await ada.stop()
    await bob.stop()
  }
}
