import Foundation
import SwitchboardClient
import SwitchboardTestSupport
import Testing

/// The client against node's `ws` server (Debian node-ws, unpacked by
/// scripts/install-test-peers.sh): a server implementation nobody here wrote.
@Suite(.onTestThreads, .enabled(ifAvailable: NodeWS.available, "needs node and the unpacked node-ws"))
struct WebSocketClientNodeTests {
  private func withNodeEcho(_ body: (Int) async throws -> Void) async throws {
    let peer = try ChildProcess(Executables.tool("node")!, [NodeWS.script], environment: ["NODE_PATH": NodeWS.modules])
    defer { peer.stop() }
    let port = try await peer.waitForLine { line -> Int? in
      line.hasPrefix("listening ") ? Int(line.dropFirst("listening ".count)) : nil
    }
    try await body(port)
  }

  @Test(arguments: [false, true])
  func textAndBinaryEchoWithAndWithoutCompression(compression: Bool) async throws {
    try await withNodeEcho { port in
      let client = try await WebSocketClient.connect(
        to: "ws://127.0.0.1:\(port)/", configuration: .init(compression: compression))
      #expect(client.isCompressed == compression)
      var events = client.events.makeAsyncIterator()
      try await client.send(text: "héllo node")
      #expect(await events.next() == .text("héllo node"))
      let big = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
      try await client.send(binary: big)
      #expect(await events.next() == .binary(big))
      await client.close(code: 1000, reason: "bye")
    }
  }
}

enum NodeWS {
  static let modules =
    (ProcessInfo.processInfo.environment["SWITCHBOARD_PEERS_CACHE"] ?? "/var/cache/switchboard-peers")
    + "/node-ws/usr/share/nodejs"
  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("peers/node_ws_echo_server.js").path
  static let available = Executables.tool("node") != nil && FileManager.default.fileExists(atPath: modules + "/ws/package.json")
}
