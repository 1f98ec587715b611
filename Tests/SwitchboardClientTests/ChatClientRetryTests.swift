import Foundation
import SwitchboardClient
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// A send whose connection is cut before its `ack`: the client sends it again, with the
/// same `ref`, on the next connection, and the server keeps it once.
@Suite(.onTestThreads) struct ChatClientRetryTests {
  /// Through `late_message_proxy.py`: the first send is held in the network while its
  /// connection is cut, and reaches the server late — just before the client's retry on
  /// the new connection. Without the ref as an idempotency key both would be stored.
  @Test(.enabled(ifAvailable: PythonPeer.hasPython, "needs python3"))
  func aSendRetriedAfterALostAckIsKeptOnce() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("peers/late_message_proxy.py").path
    let proxy = try ChildProcess(
      command: ["python3", "-u", script, "\(server.httpAddress!.port)", "--seconds", "60"])
    defer { proxy.stop() }
    let port = try await proxy.waitForLine { line -> Int? in
      line.hasPrefix("port ") ? Int(line.dropFirst(5)) : nil
    }
    let watcher = try ChatProbe(wsURL(server), name: "watcher")
    try await watcher.waitReady()
    let ada = try ChatProbe("ws://127.0.0.1:\(port)/", name: "ada")
    try await ada.waitReady()

    let id = try #require(try await ada.client.send("only once"))
    #expect(proxy.stdout.contains("held"), "the proxy never held the send: \(proxy.stdout)")
    #expect(proxy.stdout.contains("released"), "the proxy never released the send: \(proxy.stdout)")
    #expect(ada.connectedCount >= 2)
    // The retry went before this on the same connection: once the marker is in, so is
    // whatever the retry stored.
    _ = try await ada.client.send("marker")
    _ = try await watcher.waitForMessage("marker")
    let seen = watcher.messages.filter { $0.text == "only once" }
    #expect(seen.map(\.id) == [id])
    #expect(server.hub.history(room: "lobby", last: 10).filter { $0.text == "only once" }.map(\.id) == [id])
    #expect(ada.messages.filter { $0.text == "only once" }.count == 1)
    await ada.stop()
    await watcher.stop()
  }
}
