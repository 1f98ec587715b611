import Foundation
import SwitchboardAuth
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// The JSON protocol's `who` and `rooms` frames (docs/PROTOCOLS.md): answered with `members`
/// and `rooms` frames, as the line dialect answers `/who` and `/rooms`.
@Suite(.onTestThreads)
struct JSONQueryFrameTests {
  @Test func whoAndRoomsAreAnsweredAsTheLineCommandsAre() async throws {
    try await withServer { server in
      let ws = try WebSocketTestClient(server.httpAddress!, path: "/rooms/dev?name=ada")
      _ = try ws.nextJSON(type: "history")
      let line = try LineClient(server.tcpAddress!)
      try line.sendLine("iam:bob")
      try line.sendLine("/join dev")
      try line.expectLine { $0.hasPrefix("* you are now in dev") }
      let other = try LineClient(server.tcpAddress!)
      try other.sendLine("iam:cy")
      try await eventually { server.hub.who(room: "lobby") == ["cy"] }

      try ws.send(text: #"{"type":"who"}"#)
      let members = try ws.nextJSON(type: "members")
      let data = try #require(members["data"] as? [String: Any])
      #expect(data["room"] as? String == "dev")
      #expect(data["names"] as? [String] == ["ada", "bob"])
      try line.sendLine("/who")
      try line.expectLine("* in dev (2): ada, bob")

      // Any `data` is ignored; the list is the line's, in the same order.
      try ws.send(text: #"{"type":"rooms","data":{"x":1}}"#)
      let rooms = try ws.nextJSON(type: "rooms")
      let list = try #require(rooms["data"] as? [[String: Any]])
      #expect(list.map { $0["name"] as? String } == ["dev", "lobby"])
      #expect(list.map { ($0["members"] as? NSNumber)?.intValue } == [2, 1])
      try line.sendLine("/rooms")
      try line.expectLine("* rooms: dev (2), lobby (1)")

      // Still an error for a type the protocol does not know, and the connection stays.
      try ws.send(text: #"{"type":"whom"}"#)
      let error = try ws.nextJSON(type: "error")
      #expect((error["data"] as? [String: Any])?["code"] as? String == "unknown_type")
      try ws.send(text: #"{"type":"who"}"#)
      _ = try ws.nextJSON(type: "members")
    }
  }

  @Test(.enabled(ifAvailable: TokenSupport.isAvailable, "needs a crypto library for tokens (TokenSupport)"))
  func theRoomsFrameListsOnlyTheRoomsTheTokenAllows() async throws {
    try await withServer({ $0.tokenVerifier = TestTokens.verifier }) { server in
      let admin = try LineClient(server.tcpAddress!)
      try admin.sendLine("auth:" + TestTokens.token(sub: "admin", rooms: ["*"]))
      try admin.expectLine("* authenticated as admin")
      try admin.sendLine("/join board-secret")
      try admin.expectLine { $0.hasPrefix("* you are now in board-secret") }
      let alice = try WebSocketTestClient(server.httpAddress!, path: "/rooms/team-red?token=" + TestTokens.token())
      _ = try alice.nextJSON(type: "history")
      try alice.send(text: #"{"type":"rooms"}"#)
      let rooms = try alice.nextJSON(type: "rooms")
      let names = try #require(rooms["data"] as? [[String: Any]]).map { $0["name"] as? String }
      #expect(names == ["team-red"])
      let all = try WebSocketTestClient(
        server.httpAddress!, path: "/rooms/lobby?token=" + TestTokens.token(sub: "root", rooms: ["*"]))
      _ = try all.nextJSON(type: "history")
      try all.send(text: #"{"type":"rooms"}"#)
      let every = try #require(try all.nextJSON(type: "rooms")["data"] as? [[String: Any]]).map { $0["name"] as? String }
      #expect(every == ["board-secret", "lobby", "team-red"])
      try alice.send(text: #"{"type":"who"}"#)
      #expect((try alice.nextJSON(type: "members")["data"] as? [String: Any])?["names"] as? [String] == ["alice"])
    }
  }
}
