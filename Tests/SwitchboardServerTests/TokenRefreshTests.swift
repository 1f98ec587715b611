import Foundation
import SwitchboardAuth
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// Token refresh on a live connection (docs/SECURITY.md, "Token refresh"): the notice before
/// expiry, a fresh token moving the expiry, bad refreshes refused, no refresh → closed at
/// expiry. Ten-second tokens and a five-second lead (the notice leaves the client 5 s, which
/// a loaded CI machine needs), so each test takes seconds.
@Suite(
  .onTestThreads,
  .enabled(ifAvailable: TokenSupport.isAvailable, "needs a crypto library for tokens (TokenSupport)"))
struct TokenRefreshTests {
  private func withRefreshServer(_ body: (ChatServer) async throws -> Void) async throws {
    try await withServer(
      {
        $0.tokenVerifier = TestTokens.verifier
        $0.tokenRefreshLead = .seconds(5)
      }, body)
  }

  @Test func aLineConnectionRefreshedTwiceOutlivesItsFirstToken() async throws {
    try await withRefreshServer { server in
      let start = TestTokens.now
      let alice = try LineClient(server.tcpAddress!)
      try alice.sendLine("auth:" + TestTokens.token(ttl: 10))
      try alice.expectLine("* authenticated as alice")
      for _ in 0..<2 {
        // The notice comes the lead (5 s) before the token's end.
        let notice = try alice.expectLine(timeout: .seconds(15)) { $0.hasPrefix("* token expires in ") }
        #expect(notice.hasSuffix(" s, send auth:TOKEN"), "\(notice)")
        try alice.sendLine("auth:" + TestTokens.token(ttl: 10))
        try alice.expectLine { $0.hasPrefix("* token refreshed, expires in ") }
      }
      // A second past the first token's end (whole seconds: it ended by start + 10), still
      // a member that speaks; the last token runs past start + 20.
      try await eventually(timeout: .seconds(15)) { TestTokens.now >= start + 11 }
      let bob = try LineClient(server.tcpAddress!)
      try bob.sendLine("auth:" + TestTokens.token(sub: "bob"))
      try bob.expectLine("* authenticated as bob")
      try alice.sendLine("still here")
      try bob.expectLine("alice: still here")
      // No third refresh: closed at the last token's end.
      try alice.expectLine("! token expired", timeout: .seconds(20))
      try alice.expectClosed()
      #expect(TestTokens.now >= start + 15)
    }
  }

  @Test func aWebSocketRefreshedTwiceOutlivesItsFirstToken() async throws {
    try await withRefreshServer { server in
      let start = TestTokens.now
      let ws = try WebSocketTestClient(
        server.httpAddress!, path: "/?name=alice&token=" + TestTokens.token(ttl: 10))
      _ = try ws.nextJSON(type: "history")
      for _ in 0..<2 {
        let notice = try ws.nextJSON(type: "token_expiring", timeout: .seconds(15))
        let seconds = (notice["data"] as? [String: Any])?["seconds"] as? Int
        #expect(seconds.map { (0...5).contains($0) } == true, "\(notice)")
        try ws.send(text: #"{"type":"refresh","data":{"token":""# + TestTokens.token(ttl: 10) + #""}}"#)
        let answer = try ws.nextJSON(type: "token_refreshed")
        #expect(
          ((answer["data"] as? [String: Any])?["seconds"] as? Int).map { (8...10).contains($0) } == true)
      }
      try await eventually(timeout: .seconds(15)) { TestTokens.now >= start + 11 }
      #expect(server.hub.who(room: "lobby").contains("alice"))
      let error = try ws.nextJSON(type: "error", timeout: .seconds(20))
      #expect((error["data"] as? [String: Any])?["code"] as? String == "token_expired")
      #expect(try ws.nextClose() == .policyViolation)
      #expect(TestTokens.now >= start + 15)
    }
  }

  @Test func aRefreshWithAWrongSignatureOrAnotherSubjectIsRefusedAndTheOldExpiryStands() async throws {
    try await withRefreshServer { server in
      let alice = try LineClient(server.tcpAddress!)
      try alice.sendLine("auth:" + TestTokens.token(ttl: 8))
      try alice.expectLine("* authenticated as alice")
      try alice.sendLine("auth:" + TestTokens.token(ttl: 3600, key: TestTokens.otherKey))
      try alice.expectLine("! refresh refused: token signature invalid")
      try alice.sendLine("auth:" + TestTokens.token(sub: "mallory", ttl: 3600))
      try alice.expectLine("! refresh refused: refresh token is for another user")
      try alice.sendLine("auth:" + TestTokens.token(rooms: ["elsewhere"], ttl: 3600))
      try alice.expectLine("! refresh refused: not allowed in room lobby")
      try alice.expectLine("! token expired", timeout: .seconds(20))
      try alice.expectClosed()

      let ws = try WebSocketTestClient(server.httpAddress!, path: "/?token=" + TestTokens.token(ttl: 8))
      _ = try ws.nextJSON(type: "history")
      for (token, answer) in [
        (TestTokens.token(ttl: 3600, key: TestTokens.otherKey), "token signature invalid"),
        (TestTokens.token(sub: "mallory", ttl: 3600), "refresh token is for another user"),
        ("garbage", "token malformed"),
      ] {
        try ws.send(text: #"{"type":"refresh","data":{"token":""# + token + #""}}"#)
        let error = try ws.nextJSON(type: "error")
        #expect((error["data"] as? [String: Any])?["code"] as? String == "refresh_failed")
        #expect((error["data"] as? [String: Any])?["message"] as? String == answer)
      }
      let expired = try ws.nextJSON(type: "error", timeout: .seconds(20))
      #expect((expired["data"] as? [String: Any])?["code"] as? String == "token_expired")
      #expect(try ws.nextClose() == .policyViolation)
    }
  }

  @Test func aRefreshMovesTheCapabilitiesToTheNewToken() async throws {
    try await withRefreshServer { server in
      let alice = try LineClient(server.tcpAddress!)
      try alice.sendLine("auth:" + RoomCapabilityTests.token(sub: "alice", "lobby=subscribe"))
      try alice.expectLine("* authenticated as alice")
      try alice.sendLine("hello")
      try alice.expectLine("! not allowed to publish in room lobby")
      try alice.sendLine("auth:" + TestTokens.token(rooms: ["lobby"]))
      try alice.expectLine { $0.hasPrefix("* token refreshed") }
      try alice.sendLine("hello again")
      try await eventually { server.hub.history(room: "lobby", last: 5).map(\.text) == ["hello again"] }
    }
  }

  @Test func withoutTokensARefreshFrameIsAnswered() async throws {
    try await withServer { server in
      let ws = try WebSocketTestClient(server.httpAddress!, path: "/")
      try ws.send(text: #"{"type":"refresh","data":{"token":"x"}}"#)
      let error = try ws.nextJSON(type: "error")
      #expect((error["data"] as? [String: Any])?["code"] as? String == "refresh_failed")
      #expect(
        (error["data"] as? [String: Any])?["message"] as? String
          == "this connection holds no token to refresh")
    }
  }
}
