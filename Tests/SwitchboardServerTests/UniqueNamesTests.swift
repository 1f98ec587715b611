import Foundation
import SwitchboardAuth
import SwitchboardIO
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// Names are unique per room without tokens (docs/SECURITY.md, "Names"): a second `alice`
/// gets `alice (2)`, then `(3)`, on every dialect and every path that names a member, and is
/// told; with tokens every session of one `sub` shares its name.
@Suite(.onTestThreads)
struct UniqueNamesTests {
  private func who(_ client: LineClient) throws -> [String] {
    try client.sendLine("/who")
    let line = try client.expectLine { $0.hasPrefix("* in ") }
    return line.components(separatedBy: "): ").last?.components(separatedBy: ", ") ?? []
  }

  @Test func aSecondLineAliceIsAlice2AndIsTold() async throws {
    try await withServer { server in
      let observer = try LineClient(server.tcpAddress!)
      try observer.join(as: "observer")
      let first = try LineClient(server.tcpAddress!)
      try first.join(as: "alice")
      try observer.expectLine("* alice has joined")
      // iam: with a free name has no answer (as before); with a taken one it is told.
      let second = try LineClient(server.tcpAddress!)
      try second.sendLine("iam:alice")
      try second.expectLine("* you are now alice (2)")
      try observer.expectLine("* alice (2) has joined")
      // /nick to a taken name: the next free number.
      let third = try LineClient(server.tcpAddress!)
      try third.join(as: "carol")
      try third.sendLine("/nick alice")
      try third.expectLine("* you are now alice (3)")
      try observer.expectLine("* carol is now alice (3)")
      #expect(try who(observer) == ["alice", "alice (2)", "alice (3)", "observer"])
      // Messages carry the name the member has.
      try second.sendLine("hi from the second")
      try observer.expectLine("alice (2): hi from the second")
      // Once alice left, the name is free again.
      first.reset()
      try observer.expectLine("* alice has left")
      let fourth = try LineClient(server.tcpAddress!)
      try fourth.join(as: "alice")
      #expect(fourth.expectSilence(for: .milliseconds(200)).allSatisfy { !$0.hasPrefix("* you are now") })
    }
  }

  @Test func joiningARoomWhereTheNameIsTakenRenamesAndComingBackRestoresIt() async throws {
    try await withServer { server in
      let devAlice = try LineClient(server.tcpAddress!)
      try devAlice.join(as: "alice")
      try devAlice.sendLine("/join dev")
      try devAlice.expectLine { $0.hasPrefix("* you are now in dev") }
      let alice = try LineClient(server.tcpAddress!)
      try alice.join(as: "alice")
      try alice.sendLine("/join dev")
      try alice.expectLine("* you are now alice (2)")
      try alice.expectLine("* you are now in dev (2 members)")
      try devAlice.expectLine("* alice (2) has joined")
      // Back in the lobby, where alice is free, the name asked for comes back.
      try alice.sendLine("/join lobby")
      try alice.expectLine("* you are now alice")
      try alice.expectLine { $0.hasPrefix("* you are now in lobby") }
      #expect(try who(alice) == ["alice"])
    }
  }

  @Test func webSocketNamesAreUniqueAndTheNameFrameSaysWhich() async throws {
    try await withServer { server in
      let observer = try LineClient(server.tcpAddress!)
      try observer.join(as: "alice")
      // ?name= on the URL.
      let byQuery = try WebSocketTestClient(server.httpAddress!, path: "/?name=alice")
      #expect(try byQuery.nextJSON(type: "name")["data"] as? String == "alice (2)")
      try observer.expectLine("* alice (2) has joined")
      // The seed protocol's first plain frame.
      let plain = try WebSocketTestClient(server.httpAddress!)
      _ = try plain.nextJSON(type: "history")
      try plain.send(text: "alice")
      #expect(try plain.nextJSON(type: "name")["data"] as? String == "alice (3)")
      // A join frame's name, and a free name confirmed as it is.
      let framed = try WebSocketTestClient(server.httpAddress!)
      _ = try framed.nextJSON(type: "history")
      try framed.send(text: #"{"type":"join","data":{"name":"bob"}}"#)
      #expect(try framed.nextJSON(type: "name")["data"] as? String == "bob")
      try framed.send(text: #"{"type":"join","data":{"name":"alice"}}"#)
      #expect(try framed.nextJSON(type: "name")["data"] as? String == "alice (4)")
      try observer.expectLine("* bob is now alice (4)")
      // Moving to a room where the name is free: told the name it has there.
      try framed.send(text: #"{"type":"join","data":{"room":"dev"}}"#)
      #expect(try framed.nextJSON(type: "name")["data"] as? String == "alice")
      // Its messages carry the confirmed name.
      try byQuery.send(text: #"{"type":"message","data":{"text":"from two"}}"#)
      try observer.expectLine("alice (2): from two")
    }
  }

  @Test func aUDPSenderTakingAUsedNameIsTold() async throws {
    try await withServer { server in
      let observer = try LineClient(server.tcpAddress!)
      try observer.join(as: "alice")
      let udp = try DatagramPeer(server.udpAddress!)
      try udp.prove()
      try udp.send("iam:alice")
      _ = try udp.expect { $0 == "* you are now alice (2)\n" }
      try observer.expectLine("* alice (2) has joined")
    }
  }

  @Test(.enabled(ifAvailable: TokenSupport.isAvailable, "needs a crypto library for tokens (TokenSupport)"))
  func withTokensTwoSessionsOfOneSubShareTheName() async throws {
    try await withServer({ $0.tokenVerifier = TestTokens.verifier }) { server in
      let observer = try LineClient(server.tcpAddress!)
      try observer.sendLine("auth:" + TestTokens.token(sub: "observer"))
      try observer.expectLine("* authenticated as observer")
      let phone = try LineClient(server.tcpAddress!)
      try phone.sendLine("auth:" + TestTokens.token(sub: "alice"))
      try phone.expectLine("* authenticated as alice")
      try observer.expectLine("* alice has joined")
      let laptop = try WebSocketTestClient(
        server.httpAddress!, path: "/?token=" + TestTokens.token(sub: "alice"))
      #expect(try laptop.nextJSON(type: "name")["data"] as? String == "alice")
      try observer.expectLine("* alice has joined")
      #expect(try who(observer) == ["alice", "alice", "observer"])
    }
  }
}
