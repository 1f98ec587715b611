import Foundation
import SwitchboardAuth
import SwitchboardIO
import SwitchboardTestSupport
import Testing

/// Tokens and Origin against the real binary (`serve --auth-secret-file`), with peers
/// nobody here wrote: python `websockets`, PyJWT-minted tokens, and `switchboard
/// send`/`chat --token` (the client library).
@Suite(
  .onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "build the switchboard executable first"),
  .enabled(ifAvailable: TokenSupport.isAvailable, "needs a crypto library for tokens (TokenSupport)"))
struct AuthPeerTests {
  static let hasPyJWT = commandSucceeds(["python3", "-c", "import jwt"])
  let binary = Executables.switchboard ?? ""

  private func withAuthBinaryServer(_ body: (_ tcp: Int, _ http: Int, _ secretFile: String) async throws -> Void)
    async throws
  {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authpeer-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let secretFile = directory.appendingPathComponent("secret").path
    // No trailing newline: PyJWT reads the file as it is (serve would drop one).
    try Data(TestTokens.secret).write(to: URL(fileURLWithPath: secretFile))
    let server = try await ServeProcess.start(["--ephemeral", "--auth-secret-file", secretFile, "--auth-leeway", "0", "--allow-origin", "https://app.example"])
    defer { server.signal(SIGTERM) }
    try await body(server.tcp, server.http, secretFile)
  }

  /// Runs Tests/peers/ws_auth_client.py and returns its report lines.
  private func pythonPeer(_ args: [String]) async throws -> [String] {
    let peer = try ChildProcess(PeerScriptTests.python!, ["\(PeerScriptTests.peersDirectory)/ws_auth_client.py"] + args)
    #expect(try await peer.waitForExit(timeout: .seconds(60)) == 0, "\(peer.stderr.suffix(800))")
    return peer.stdout.split(separator: "\n").map(String.init)
  }

  @Test(.enabled(ifAvailable: PeerScriptTests.python != nil, "needs python3 with websockets"))
  func pythonWebsocketsGetsTheDocumentedAnswers() async throws {
    try await withAuthBinaryServer { _, http, _ in
      let base = "ws://127.0.0.1:\(http)"
      let good = try await pythonPeer(["\(base)/?token=" + TestTokens.token()])
      #expect(good.first == "OPEN")
      #expect(good.contains { $0.hasPrefix(#"FRAME {"type":"history""#) })
      let bearer = try await pythonPeer(["\(base)/rooms/team-a", "--bearer", TestTokens.token()])
      #expect(bearer.contains { $0.hasPrefix(#"FRAME {"type":"history""#) })
      for (what, token, answer) in TestTokens.refused {
        let lines = try await pythonPeer(["\(base)/?token=" + token])
        #expect(lines.last == "CLOSE 1008 \(answer)", "\(what): \(lines)")
      }
      let missing = try await pythonPeer(["\(base)/"])
      #expect(missing.last == "CLOSE 1008 authentication required")
      let room = try await pythonPeer(["\(base)/rooms/secret?token=" + TestTokens.token()])
      #expect(room.last == "CLOSE 1008 not allowed in room secret")
      let expiring = try await pythonPeer(["\(base)/?token=" + TestTokens.token(ttl: 2), "--wait", "10"])
      #expect(expiring.last == "CLOSE 1008 token expired", "\(expiring)")
      // Origin: allowed, forbidden, null, the served page's own.
      let token = TestTokens.token()
      #expect(try await pythonPeer(["\(base)/?token=\(token)", "--origin", "https://app.example"]).first == "OPEN")
      #expect(try await pythonPeer(["\(base)/?token=\(token)", "--origin", "https://evil.example"]) == ["STATUS 403"])
      #expect(try await pythonPeer(["\(base)/?token=\(token)", "--origin", "null"]) == ["STATUS 403"])
      #expect(
        try await pythonPeer(["\(base)/?token=\(token)", "--origin", "http://127.0.0.1:\(http)"]).first == "OPEN")
    }
  }

  @Test(.enabled(ifAvailable: PeerScriptTests.python != nil, "needs python3 with websockets"))
  func pythonWebsocketsRefreshesItsTokenTwiceAndIsClosedAtTheLastOnesEnd() async throws {
    try await withAuthBinaryServer { _, http, secretFile in
      // The server's default lead (60 s) is cut to half the time each token has left. The
      // peer mints its 8-second tokens itself when it needs them (hs256_token.py): python
      // may take seconds to start on a loaded machine, and a token that ran out before the
      // upgrade proves nothing.
      let start = TestTokens.now
      let lines = try await pythonPeer([
        "ws://127.0.0.1:\(http)/?token={token}", "--wait", "40", "--mint-secret-file", secretFile,
        "--mint-sub", "alice", "--mint-ttl", "8", "--mint-refreshes", "2",
      ])
      #expect(lines.filter { $0.hasPrefix(#"FRAME {"type":"token_expiring""#) }.count == 3, "\(lines)")
      #expect(lines.filter { $0.hasPrefix(#"FRAME {"type":"token_refreshed""#) }.count == 2, "\(lines)")
      #expect(lines.last == "CLOSE 1008 token expired", "\(lines)")
      // Closed at the last token's end, past the first one's (three tokens' halves and one
      // whole: 4 + 4 + 8 s at least).
      #expect(TestTokens.now >= start + 15)
    }
  }

  @Test(.enabled(ifAvailable: hasPyJWT, "needs python3 with PyJWT"))
  func pyjwtMintedTokensAreAccepted() async throws {
    try await withAuthBinaryServer { tcp, _, secretFile in
      let claims = #"{"sub":"pyalice","rooms":["lobby"],"exp":\#(TestTokens.now + 600)}"#
      let mint = try ChildProcess(
        command: ["python3", "scripts/security/pyjwt-peer.py", "mint", "HS256", secretFile, claims],
        directory: URL(fileURLWithPath: AuthPeerTests.root))
      #expect(try await mint.waitForExit() == 0, "\(mint.stderr)")
      let token = mint.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
      let c = try LineClient(SocketAddress(host: "127.0.0.1", port: tcp))
      try c.sendLine("auth:" + token)
      try c.expectLine("* authenticated as pyalice")
    }
  }

  @Test func sendAndChatWithATokenReachAnAuthServer() async throws {
    try await withAuthBinaryServer { tcp, http, secretFile in
      let observer = try LineClient(SocketAddress(host: "127.0.0.1", port: tcp))
      try observer.sendLine("auth:" + TestTokens.token(sub: "observer"))
      try observer.expectLine("* authenticated as observer")
      let mint = try ChildProcess(binary, ["token", "--secret-file", secretFile, "--sub", "bot", "--rooms", "lobby", "--ttl", "10m"])
      #expect(try await mint.waitForExit() == 0)
      let token = mint.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
      let send = try ChildProcess(
        binary, ["send", "tcp://127.0.0.1:\(tcp)", "--name", "bot", "--token", token, "hello", "with", "a", "token"])
      #expect(try await send.waitForExit() == 0, "\(send.stderr)")
      try observer.expectLine("bot: hello with a token")
      let chat = try ChildProcess(binary, ["chat", "ws://127.0.0.1:\(http)/", "--name", "bot", "--token", token])
      defer { chat.stop() }
      try observer.expectLine("* bot has joined")
      chat.write("from chat over ws\n")
      try observer.expectLine("bot: from chat over ws")
    }
  }

  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
}
