import Foundation
import SwitchboardAuth
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// Capabilities per room in tokens (docs/SECURITY.md, "Capabilities"), enforced on the line
/// dialect and WebSocket (JSON and text) over real sockets.
@Suite(
  .onTestThreads,
  .enabled(ifAvailable: TokenSupport.isAvailable, "needs a crypto library for tokens (TokenSupport)"))
struct RoomCapabilityTests {
  private func withAuthServer(_ body: (ChatServer) async throws -> Void) async throws {
    try await withServer({ $0.tokenVerifier = TestTokens.verifier }, body)
  }

  /// A token for `sub` with `grants` spelled as `switchboard token --rooms` reads them.
  static func token(sub: String, _ grants: String) -> String {
    let parsed = grants.split(separator: ",").map { RoomGrant(parsing: $0)! }
    let claims = TokenClaims(subject: sub, grants: parsed, expiresAt: TestTokens.now + 3600)
    return try! TokenSigner.sign(claims, with: TestTokens.key)
  }

  private func lineMember(_ server: ChatServer, _ sub: String, _ grants: String) throws -> LineClient {
    let c = try LineClient(server.tcpAddress!)
    try c.sendLine("auth:" + Self.token(sub: sub, grants))
    try c.expectLine("* authenticated as \(sub)")
    return c
  }

  // MARK: publish

  @Test func aSubscribeOnlyLineMemberIsRefusedEachMessageAndStillReceives() async throws {
    try await withAuthServer { server in
      let observer = try lineMember(server, "observer", "lobby")
      let alice = try lineMember(server, "alice", "lobby=subscribe")
      try observer.expectLine("* alice has joined")
      try alice.sendLine("hello")
      try alice.expectLine("! not allowed to publish in room lobby")
      try alice.sendLine("/me waves")
      try alice.expectLine("! not allowed to publish in room lobby")
      try observer.sendLine("from the observer")
      try alice.expectLine("observer: from the observer")
      // Nothing of alice's reached the room: every line the observer got up to bob's is not hers.
      let bob = try lineMember(server, "bob", "lobby")
      try bob.sendLine("after")
      var lines: [String] = []
      while true {
        let line = try observer.readLine()
        if line == "bob: after" { break }
        lines.append(line)
      }
      #expect(!lines.contains { $0.hasPrefix("alice") }, "\(lines)")
      #expect(server.hub.history(room: "lobby", last: 10).map(\.text) == ["from the observer", "after"])
    }
  }

  @Test func aSubscribeOnlyWebSocketMemberGetsPublishForbiddenWithItsRefAndStillReceives() async throws {
    try await withAuthServer { server in
      let ws = try WebSocketTestClient(
        server.httpAddress!, path: "/?token=" + Self.token(sub: "alice", "lobby=subscribe+presence+history"))
      _ = try ws.nextJSON(type: "history")
      try await eventually { server.hub.who(room: "lobby").contains("alice") }
      let observer = try lineMember(server, "observer", "lobby")
      try ws.send(text: #"{"type":"message","data":{"text":"hello","ref":7}}"#)
      let error = try ws.nextJSON(type: "error")
      let data = error["data"] as? [String: Any]
      #expect(data?["code"] as? String == "publish_forbidden")
      #expect(data?["message"] as? String == "not allowed to publish in room lobby")
      #expect(data?["ref"] as? Int == 7)
      try ws.send(text: "a plain frame")
      _ = try ws.nextJSON(type: "error") { ($0["data"] as? [String: Any])?["code"] as? String == "publish_forbidden" }
      try observer.sendLine("to everyone")
      _ = try ws.nextJSON(type: "message") { ($0["data"] as? [String: Any])?["text"] as? String == "to everyone" }
      // Nothing of alice's was published: the room's history holds only the observer's.
      #expect(server.hub.history(room: "lobby", last: 10).map(\.text) == ["to everyone"])
    }
  }

  @Test func aSubscribeOnlyTextDialectMemberGetsTheRefusalAsAText() async throws {
    try await withAuthServer { server in
      let ws = try WebSocketTestClient(
        server.httpAddress!, path: "/?format=text&token=" + Self.token(sub: "alice", "lobby=subscribe"))
      try await eventually { server.hub.who(room: "lobby").contains("alice") }
      try ws.send(text: "hello")
      #expect(try ws.nextText() == "! not allowed to publish in room lobby")
      #expect(server.hub.history(room: "lobby", last: 10).isEmpty)
    }
  }

  // MARK: presence

  @Test func withoutPresenceWhoIsRefusedAndNoPresenceReachesTheMember() async throws {
    try await withAuthServer { server in
      let alice = try lineMember(server, "alice", "lobby=subscribe+publish")
      try alice.sendLine("/who")
      try alice.expectLine("! not allowed to see who is in room lobby")
      let ws = try WebSocketTestClient(
        server.httpAddress!, path: "/?token=" + Self.token(sub: "wanda", "lobby=subscribe+publish+history"))
      _ = try ws.nextJSON(type: "history")
      try ws.send(text: #"{"type":"who"}"#)
      let error = try ws.nextJSON(type: "error")
      #expect((error["data"] as? [String: Any])?["code"] as? String == "presence_forbidden")
      // Bob comes and goes; then speaks from a second connection. Neither presence-less
      // member saw the arrival or the departure, both got the message.
      let bob = try lineMember(server, "bob", "lobby")
      try bob.sendLine("/quit")
      try bob.expectClosed()
      let bob2 = try lineMember(server, "bob", "lobby")
      try bob2.sendLine("hi")
      var lines: [String] = []
      while true {
        let line = try alice.readLine()
        if line == "bob: hi" { break }
        lines.append(line)
      }
      #expect(lines.isEmpty, "presence lines reached a member without presence: \(lines)")
      var frames: [String] = []
      while true {
        let text = try ws.nextText()
        if text.contains(#""text":"hi""#) { break }
        frames.append(text)
      }
      #expect(!frames.contains { $0.contains(#""type":"presence""#) }, "\(frames)")
      // Its own arrival is announced to the others (presence governs what it sees).
      let carol = try lineMember(server, "carol", "lobby")
      let dave = try lineMember(server, "dave", "lobby=subscribe")
      _ = dave
      try carol.expectLine("* dave has joined")
    }
  }

  // MARK: history

  @Test func withoutHistoryThereIsNoReplayAndNoHistoryAnswer() async throws {
    try await withAuthServer { server in
      let bob = try lineMember(server, "bob", "lobby")
      try bob.sendLine("kept one")
      try bob.sendLine("kept two")
      try await eventually { server.hub.history(room: "lobby", last: 10).count == 2 }
      let full = try WebSocketTestClient(server.httpAddress!, path: "/?since=0&token=" + Self.token(sub: "fay", "lobby"))
      let replayed = try full.nextJSON(type: "history")
      #expect((replayed["data"] as? [Any])?.count == 2)
      let ws = try WebSocketTestClient(
        server.httpAddress!, path: "/?since=0&token=" + Self.token(sub: "alice", "lobby=subscribe+publish+presence"))
      let history = try ws.nextJSON(type: "history")
      #expect((history["data"] as? [Any])?.isEmpty == true, "\(history)")
      try ws.send(text: #"{"type":"history","data":{"limit":5}}"#)
      let error = try ws.nextJSON(type: "error")
      #expect((error["data"] as? [String: Any])?["code"] as? String == "history_forbidden")
      #expect((error["data"] as? [String: Any])?["message"] as? String == "not allowed to read the history of room lobby")
      let line = try lineMember(server, "carl", "lobby=subscribe+publish")
      try line.sendLine("/history 5")
      try line.expectLine("! not allowed to read the history of room lobby")
      try line.sendLine("/since 0")
      try line.expectLine("! not allowed to read the history of room lobby")
    }
  }

  // MARK: per room, and the list form

  @Test func capabilitiesFollowTheRoomAJoinMovesTo() async throws {
    try await withAuthServer { server in
      let alice = try lineMember(server, "alice", "lobby=subscribe,team-*")
      try alice.sendLine("hello")
      try alice.expectLine("! not allowed to publish in room lobby")
      try alice.sendLine("/join team-red")
      try alice.expectLine { $0.hasPrefix("* you are now in team-red") }
      try alice.sendLine("hello red")
      try await eventually { server.hub.history(room: "team-red", last: 5).map(\.text) == ["hello red"] }
      try alice.sendLine("/who")
      try alice.expectLine("* in team-red (1): alice")
    }
  }

  @Test func theLandingRoomIsANamedRoomWithSubscribe() async throws {
    try await withAuthServer { server in
      // Not the default room; `a-news` comes first by name but cannot be joined.
      let alice = try lineMember(server, "alice", "a-news=history,b-team=subscribe")
      try await eventually { server.hub.who(room: "b-team") == ["alice"] }
      try alice.sendLine("/join a-news")
      try alice.expectLine("! not allowed in room a-news")
    }
  }

  @Test func listFormTokensKeepEveryCapability() async throws {
    try await withAuthServer { server in
      // Minted the way tokens were before capabilities: `rooms` is an array.
      let token = TestTokens.token(rooms: ["lobby"])
      guard case .object(let payload) = try UnverifiedToken(parsing: token).payload else {
        throw TestFailure("payload is not an object")
      }
      #expect(payload["rooms"] == .array([.string("lobby")]))
      let bob = try lineMember(server, "bob", "lobby")
      try bob.sendLine("before")
      let alice = try LineClient(server.tcpAddress!)
      try alice.sendLine("auth:" + token)
      try alice.expectLine("* authenticated as alice")
      try bob.expectLine("* alice has joined")
      try alice.sendLine("/who")
      try alice.expectLine { $0.hasPrefix("* in lobby (2): ") }
      try alice.sendLine("/history 5")
      try alice.expectLine { $0.contains("bob: before") }
      try alice.sendLine("hello")
      try bob.expectLine("alice: hello")
      try bob.sendLine("/quit")
      try alice.expectLine("* bob has left")
    }
  }
}
