import Foundation
import SwitchboardClient
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// ``ChatClient`` as a second `alice` on a server without tokens: the server calls it
/// `alice (2)` (docs/SECURITY.md, "Unique names per room"), and the client follows the name
/// the server confirmed — its own messages are mine, the first alice's are not.
@Suite(.onTestThreads) struct ChatClientNameTests {
  @Test(arguments: ["ws", "tcp", "udp"])
  func aSecondAliceFollowsTheNameTheServerGave(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let first = try ChatProbe(wsURL(server), name: "alice")
    try await first.waitReady()
    try await first.waitFor("its own join") {
      if case .presence(let p) = $0, p.kind == .join, p.author == "alice" { return true }
      return false
    }
    let url = scheme == "ws" ? wsURL(server) : scheme == "tcp" ? tcpURL(server) : udpURL(server)
    let second = try ChatProbe(url, name: "alice")
    try await second.waitReady()
    try await eventually(timeout: ChatProbe.deadline, "confirmed as alice (2) over \(scheme)") {
      second.client.confirmedName == "alice (2)"
    }
    #expect(second.client.name == "alice")
    try await second.client.send("from the second alice")
    let seenByFirst = try await first.waitForMessage("from the second alice")
    #expect(seenByFirst.author == "alice (2)")
    #expect(!seenByFirst.isMine)
    #expect(try await second.waitForMessage("from the second alice").isMine)
    try await first.client.send("from the first alice")
    let seenBySecond = try await second.waitForMessage("from the first alice")
    #expect(seenBySecond.author == "alice")
    #expect(!seenBySecond.isMine, "the first alice's message counted as the second's own")
    await second.stop()
    await first.stop()
  }
}
