import Foundation
import SwitchboardServer
import SwitchboardTestSupport
import Testing

@testable import SwitchboardClient

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

  @Test(
    arguments: [
      ("* you are now alice (2)", "alice (2)"),
      ("* you are now bob", "bob"),
      ("* you are now in dev (2 members)", nil),
      ("* you are now in lobby (1 member)", nil),
      ("* you are now in the garden", "in the garden"),
      ("* you are now ", nil),
      ("* alice is now bob", nil),
    ] as [(String, String?)])
  func theLineNoticeThatConfirmsAName(line: String, name: String?) {
    #expect(ChatWire.confirmedName(in: line) == name)
  }

  @Test func theNameFrameMovesIsMineToTheConfirmedName() {
    var state = ChatClientState(scheme: .ws, me: "alice", room: "lobby")
    var events: [ChatClient.Event] = []
    var resumes: [ChatResume] = []
    _ = state.receive(#"{"type":"name","data":"alice (2)"}"#, events: &events, resumes: &resumes)
    #expect(state.me == "alice (2)")
    _ = state.receive(
      #"{"type":"message","data":{"id":1,"room":"lobby","text":"x","author":"alice (2)"}}"#, events: &events,
      resumes: &resumes)
    _ = state.receive(
      #"{"type":"message","data":{"id":2,"room":"lobby","text":"y","author":"alice"}}"#, events: &events,
      resumes: &resumes)
    let mine = events.compactMap { if case .message(let m) = $0 { m.isMine } else { nil } }
    #expect(mine == [true, false])
    // A new connection asks again: until the server answers, the name asked for.
    _ = state.connectionLost()
    #expect(state.me == "alice")
  }
}
