import Foundation
import SwitchboardAuth
import SwitchboardIO
import SwitchboardServer
import SwitchboardTestSupport
import SwitchboardWebSocket
import Testing

/// Tokens minted for the server tests: HS256 with ``secret``, or deliberately bad ones.
enum TestTokens {
  static let secret = Array("server-auth-tests-secret-0123456789".utf8)
  static let key = try! TokenKey(secret: secret)
  static let otherKey = try! TokenKey(secret: Array("another-secret-nobody-configured-xyz".utf8))
  /// A verifier with no leeway, so expiry tests need not wait a minute.
  static let verifier = TokenVerifier(keys: [key], leeway: 0)
  static var now: Int64 { TokenVerifier.wallClockSeconds() }

  static func token(
    sub: String = "alice", rooms: [String] = ["lobby", "team-*"], ttl: Int64 = 3600, nbf: Int64? = nil,
    key: TokenKey = key
  ) -> String {
    let claims = TokenClaims(
      subject: sub, rooms: rooms.compactMap(RoomPattern.init), expiresAt: now + ttl, notBefore: nbf)
    return try! TokenSigner.sign(claims, with: key)
  }

  /// `{"alg":"none"}` with good claims and no signature.
  static var algNone: String {
    func b64(_ s: String) -> String {
      Data(s.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
    return b64(#"{"alg":"none","typ":"JWT"}"#) + "." + b64(#"{"sub":"alice","rooms":["*"],"exp":\#(now + 3600)}"#) + "."
  }

  /// Every refused token with the answer the server gives it.
  static var refused: [(String, String, String)] {
    [
      ("expired", token(ttl: -5), "token expired"),
      ("not yet valid", token(nbf: now + 3600), "token not yet valid"),
      ("wrong signature", token(key: otherKey), "token signature invalid"),
      ("alg none", algNone, "token algorithm not accepted"),
      ("garbage", "not-a-token", "token malformed"),
    ]
  }
}

/// Signed tokens in the server: the line dialect and WebSocket (JSON), over real sockets.
@Suite(
  .onTestThreads,
  .enabled(ifAvailable: TokenSupport.isAvailable, "needs a crypto library for tokens (TokenSupport)"))
struct ServerAuthTests {
  private func withAuthServer(_ body: (ChatServer) async throws -> Void) async throws {
    try await withServer({ $0.tokenVerifier = TestTokens.verifier }, body)
  }

  // MARK: Lines

  @Test func aGoodTokenNamesTheLineMemberAfterItsSub() async throws {
    try await withAuthServer { server in
      let observer = try LineClient(server.tcpAddress!)
      try observer.sendLine("auth:" + TestTokens.token(sub: "observer"))
      try observer.expectLine("* authenticated as observer")
      let alice = try LineClient(server.tcpAddress!)
      try alice.sendLine("auth:" + TestTokens.token())
      try alice.expectLine("* authenticated as alice")
      try observer.expectLine("* alice has joined")
      try alice.sendLine("iam:alice")  // its own name: accepted silently
      try alice.sendLine("iam:mallory")
      try alice.expectLine("! name is fixed by your token")
      try alice.sendLine("/nick mallory")
      try alice.expectLine("! name is fixed by your token")
      try alice.sendLine("auth:" + TestTokens.token(sub: "bob"))
      try alice.expectLine("! refresh refused: refresh token is for another user")
      try alice.sendLine("hello")
      try observer.expectLine("alice: hello")
    }
  }

  @Test func withoutATokenTheFirstLineIsRefusedAndTheConnectionClosed() async throws {
    try await withAuthServer { server in
      let c = try LineClient(server.tcpAddress!)
      try c.sendLine("iam:alice")
      try c.expectLine("! authentication required")
      try c.expectClosed()
      #expect(server.hub.who(room: "lobby").isEmpty)
    }
  }

  @Test func everyBadTokenGetsItsAnswerAndTheConnectionClosed() async throws {
    try await withAuthServer { server in
      for (what, token, answer) in TestTokens.refused {
        let c = try LineClient(server.tcpAddress!)
        try c.sendLine("auth:" + token)
        let line = try c.readLine()
        #expect(line == "! " + answer, "\(what)")
        try c.expectClosed()
      }
      #expect(server.hub.who(room: "lobby").isEmpty)
    }
  }

  @Test func roomsOutsideTheTokenAreRefusedAndTheTokenDoesNotCarryOver() async throws {
    try await withAuthServer { server in
      // Not allowed in the default room: lands in the token's first named room.
      let c = try LineClient(server.tcpAddress!)
      try c.sendLine("auth:" + TestTokens.token(rooms: ["team-a", "ops-*"]))
      try c.expectLine("* authenticated as alice")
      try await eventually { server.hub.who(room: "team-a") == ["alice"] }
      try c.sendLine("/join lobby")
      try c.expectLine("! not allowed in room lobby")
      try c.sendLine("/join team-b")
      try c.expectLine("! not allowed in room team-b")
      try c.sendLine("/join ops-red")
      try c.expectLine { $0.hasPrefix("* you are now in ops-red") }
      // A token naming no room the server can land it in is refused.
      let d = try LineClient(server.tcpAddress!)
      try d.sendLine("auth:" + TestTokens.token(sub: "dora", rooms: ["ops-*"]))
      try d.expectLine("! not allowed in room lobby")
      try d.expectClosed()
    }
  }

  @Test func aTokenThatRunsOutClosesTheLineSession() async throws {
    try await withAuthServer { server in
      let c = try LineClient(server.tcpAddress!)
      try c.sendLine("auth:" + TestTokens.token(ttl: 2))
      try c.expectLine("* authenticated as alice")
      try c.expectLine("! token expired", timeout: .seconds(10))
      try c.expectClosed()
    }
  }

  @Test func theUDPPortAnswersEveryDatagramWithARefusal() async throws {
    try await withAuthServer { server in
      let udp = try DatagramPeer(server.udpAddress!)
      try udp.send("auth:" + TestTokens.token())
      #expect(
        try udp.receive() == "! authentication required: the UDP port takes no tokens (use tcp://, tls:// or ws:// with one)\n")
      #expect(server.hub.counts.members == 0)
    }
  }

  // MARK: WebSocket

  @Test func aGoodTokenInTheQueryNamesTheWebSocketMember() async throws {
    try await withAuthServer { server in
      let ws = try WebSocketTestClient(server.httpAddress!, path: "/?token=" + TestTokens.token() + "&name=alice")
      // The color comes when the name is set, the history when the room is open: either first.
      try await eventually { server.hub.who(room: "lobby") == ["alice"] }
      // The seed page's first frame is its name: the token's name is swallowed, not published.
      let observer = try LineClient(server.tcpAddress!)
      try observer.sendLine("auth:" + TestTokens.token(sub: "observer"))
      try observer.expectLine("* authenticated as observer")
      try ws.send(text: "alice")
      try ws.send(text: #"{"type":"join","data":{"name":"mallory"}}"#)
      let fixed = try ws.nextJSON(type: "error")
      #expect((fixed["data"] as? [String: Any])?["code"] as? String == "name_fixed")
      try ws.send(text: #"{"type":"join","data":{"room":"secret"}}"#)
      let forbidden = try ws.nextJSON(type: "error")
      #expect((forbidden["data"] as? [String: Any])?["code"] as? String == "room_forbidden")
      #expect((forbidden["data"] as? [String: Any])?["message"] as? String == "not allowed in room secret")
      try ws.send(text: "hello")
      try observer.expectLine("alice: hello")
      try ws.send(text: #"{"type":"join","data":{"room":"team-x"}}"#)
      try await eventually { server.hub.who(room: "team-x") == ["alice"] }
    }
  }

  @Test func everyBadTokenGetsAnErrorFrameAndClose1008() async throws {
    try await withAuthServer { server in
      for (what, token, answer) in TestTokens.refused + [("missing", "", "authentication required")] {
        let ws = try WebSocketTestClient(server.httpAddress!, path: "/?token=" + token)
        let error = try ws.nextJSON(type: "error")
        let data = error["data"] as? [String: Any]
        #expect(data?["message"] as? String == answer, "\(what)")
        #expect(data?["code"] as? String == (token.isEmpty ? "auth_required" : "auth_failed"), "\(what)")
        #expect(try ws.nextClose() == .policyViolation, "\(what)")
      }
      #expect(server.hub.counts.members == 0)
    }
  }

  @Test func aRoomPathOutsideTheTokenIsRefusedWith1008() async throws {
    try await withAuthServer { server in
      let ws = try WebSocketTestClient(server.httpAddress!, path: "/rooms/secret?token=" + TestTokens.token())
      let error = try ws.nextJSON(type: "error")
      #expect((error["data"] as? [String: Any])?["code"] as? String == "room_forbidden")
      #expect(try ws.nextClose() == .policyViolation)
      let ok = try WebSocketTestClient(server.httpAddress!, path: "/rooms/team-blue?token=" + TestTokens.token())
      _ = try ok.nextJSON(type: "history")
      try await eventually { server.hub.who(room: "team-blue") == ["alice"] }
    }
  }

  @Test func aTokenThatRunsOutClosesTheWebSocketWith1008() async throws {
    try await withAuthServer { server in
      let ws = try WebSocketTestClient(server.httpAddress!, path: "/?token=" + TestTokens.token(ttl: 2))
      _ = try ws.nextJSON(type: "history")
      let error = try ws.nextJSON(type: "error", timeout: .seconds(10))
      #expect((error["data"] as? [String: Any])?["code"] as? String == "token_expired")
      #expect(try ws.nextClose() == .policyViolation)
      try await eventually { server.hub.counts.members == 0 }
    }
  }

  @Test func roomsListsOnlyTheRoomsTheTokenAllows() async throws {
    try await withAuthServer { server in
      let admin = try LineClient(server.tcpAddress!)
      try admin.sendLine("auth:" + TestTokens.token(sub: "admin", rooms: ["*"]))
      try admin.expectLine("* authenticated as admin")
      try admin.sendLine("/join board-secret")
      try admin.expectLine { $0.hasPrefix("* you are now in board-secret") }
      let alice = try LineClient(server.tcpAddress!)
      try alice.sendLine("auth:" + TestTokens.token())
      try alice.expectLine("* authenticated as alice")
      try alice.sendLine("/join team-red")
      try alice.expectLine { $0.hasPrefix("* you are now in team-red") }
      try alice.sendLine("/rooms")
      let list = try alice.expectLine { $0.hasPrefix("* rooms: ") }
      #expect(list.contains("team-red (1)"))
      #expect(!list.contains("board-secret"))
      try admin.sendLine("/rooms")
      let all = try admin.expectLine { $0.hasPrefix("* rooms: ") }
      #expect(all.contains("board-secret (1)") && all.contains("team-red (1)"))
    }
  }

  @Test func withoutAuthAnAuthLineIsStillAnsweredAndNeverPublished() async throws {
    try await withServer { server in
      let c = try LineClient(server.tcpAddress!)
      try c.sendLine("auth:" + TestTokens.token())
      try c.expectLine("* this server does not check tokens; auth: ignored")
    }
  }
}
