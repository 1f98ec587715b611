import Foundation
import SwitchboardIO
import SwitchboardTestSupport
import Testing

/// Tests/peers/auth_backend.py's interpreter.
enum AuthBackendPeer {
  /// The first python3 on `PATH` with aiohttp.
  static let python: String? = Executables.tools("python3").first {
    commandSucceeds([$0, "-c", "import aiohttp"])
  }
}

/// `serve --auth-proxy` against a real backend nobody here wrote the HTTP of
/// (Tests/peers/auth_backend.py, on aiohttp): it admits, renames and refuses by the rules each
/// test gives, on the line port, WebSocket (python `websockets` and our test client) and UDP;
/// a slow, stopped or broken backend refuses (fail closed); answers are cached for
/// `--auth-proxy-cache`; a slow backend stalls nobody else.
@Suite(
  .enabled(ifAvailable: Executables.switchboard != nil, "build the switchboard executable first"),
  .enabled(ifAvailable: AuthBackendPeer.python != nil, "needs python3 with aiohttp (scripts/install-test-peers.sh)"),
  .onTestThreads)
struct AuthProxyTests {
  static let rules = #"""
    {"bob": {"allow": false, "reason": "banned"},
     "carol": {"allow": true, "name": "Carol (app)"},
     "dave": {"allow": true, "rooms": ["lobby", "team-*"]},
     "slow": {"delay": 30, "allow": true},
     "broken": {"status": 500},
     "garbage": {"raw": "not json"},
     "": {"cookie": "session=good", "then": {"allow": true, "name": "cookie-user"},
          "else": {"allow": false, "reason": "log in first"}}}
    """#

  /// The backend, started with `rules`.
  final class Backend {
    let process: ChildProcess
    let port: Int

    init(rules: String = AuthProxyTests.rules) async throws {
      process = try ChildProcess(
        AuthBackendPeer.python!, ["\(PeerScriptTests.peersDirectory)/auth_backend.py", "--rules", rules])
      port = try await process.waitForLine(timeout: .seconds(30)) { line in
        line.hasPrefix("LISTENING ") ? Int(line.dropFirst("LISTENING ".count)) : nil
      }
    }

    deinit { process.signal(SIGTERM) }

    /// How many questions it received (its `/requests`).
    func requestCount() throws -> Int {
      let out = try runTool(["curl", "-s", "http://127.0.0.1:\(port)/requests"])
      guard let data = out.data(using: .utf8),
        let list = try JSONSerialization.jsonObject(with: data) as? [Any]
      else { throw TestFailure("bad /requests: \(out)") }
      return list.count
    }

    /// The question bodies so far.
    func requests() throws -> [[String: Any]] {
      let out = try runTool(["curl", "-s", "http://127.0.0.1:\(port)/requests"])
      return (try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]]) ?? []
    }

    func setRules(_ rules: String) throws {
      _ = try runTool(["curl", "-s", "-XPOST", "--data-binary", rules, "http://127.0.0.1:\(port)/rules"])
    }
  }

  private func withProxy(
    _ backend: Backend, _ extra: [String] = [], _ body: (ServeProcess) async throws -> Void
  ) async throws {
    let server = try await ServeProcess.start(
      ["--ephemeral", "--auth-proxy", "http://127.0.0.1:\(backend.port)/auth"] + extra)
    defer { server.signal(SIGTERM) }
    try await body(server)
  }

  private func line(_ server: ServeProcess) throws -> LineClient {
    try LineClient(SocketAddress(host: "127.0.0.1", port: server.tcp))
  }

  /// Runs Tests/peers/ws_auth_client.py and returns its report lines.
  private func pythonWS(_ args: [String]) async throws -> [String] {
    let peer = try ChildProcess(
      PeerScriptTests.python!, ["\(PeerScriptTests.peersDirectory)/ws_auth_client.py"] + args)
    #expect(try await peer.waitForExit(timeout: .seconds(30)) == 0, "\(peer.stderr.suffix(800))")
    return peer.stdout.split(separator: "\n").map(String.init)
  }

  @Test func theLinePortAdmitsRenamesAndRefusesByTheBackendsAnswers() async throws {
    let backend = try await Backend()
    try await withProxy(backend) { server in
      let alice = try line(server)
      try alice.join(as: "alice")
      // Renamed by the backend: told so, and known to the room under the new name.
      let carol = try line(server)
      try carol.sendLine("iam:carol")
      try carol.expectLine("* you are now Carol (app)")
      try alice.expectLine("* Carol (app) has joined")
      try carol.sendLine("hello from carol")
      try alice.expectLine("Carol (app): hello from carol")
      // The name is the backend's for the whole connection.
      try carol.sendLine("/nick mallory")
      try carol.expectLine("! name is fixed by the auth proxy")
      // Refused: the backend's reason, then the connection closes; the room never saw it.
      let bob = try line(server)
      try bob.sendLine("iam:bob")
      try bob.expectLine("! banned")
      try bob.expectClosed()
      // Rooms limited to the answer's.
      let dave = try line(server)
      try dave.join(as: "dave")
      try dave.sendLine("/join secret")
      try dave.expectLine("! not allowed in room secret")
      try dave.sendLine("/join team-a")
      try dave.expectLine { $0.hasPrefix("* you are now in team-a") }
      // What the backend was asked: the transport, the peer, the name, the room.
      let asked = try backend.requests().first { $0["name"] as? String == "alice" }
      #expect(asked?["transport"] as? String == "tcp")
      #expect(asked?["peer"] as? String == "127.0.0.1")
      #expect(asked?["room"] as? String == "lobby")
      // Nothing of bob's reached anyone.
      #expect(!alice.expectSilence(for: .milliseconds(200)).contains { $0.contains("bob") })
    }
  }

  @Test func joiningAnotherRoomIsAskedAboutWhenTheAdmissionGaveNoRooms() async throws {
    let vipOnly =
      #"{"erin": {"room": "lobby", "then": {"allow": true}, "else": {"allow": false, "reason": "not in that room"}}}"#
    let backend = try await Backend(rules: vipOnly)
    try await withProxy(backend) { server in
      let erin = try line(server)
      try erin.join(as: "erin")
      try erin.sendLine("/join vip")
      try erin.expectLine("! not in that room")
      // Still in the lobby, still chatting.
      try erin.sendLine("/who")
      try erin.expectLine { $0.hasPrefix("* in lobby") }
      let asked = try backend.requests().last
      #expect(asked?["room"] as? String == "vip")
      #expect(asked?["name"] as? String == "erin")
      try backend.setRules(#"{"erin": {"allow": true}}"#)
      try erin.sendLine("/join vip")
      try erin.expectLine { $0.hasPrefix("* you are now in vip") }
      // A WebSocket's join frame too: refused, and the connection stays.
      try backend.setRules(vipOnly)
      let refused = try await pythonWS([
        "ws://127.0.0.1:\(server.http)/?name=erin", "--send", #"{"type":"join","data":{"room":"secret"}}"#,
      ])
      #expect(refused.contains(#"FRAME {"type":"name","data":"erin"}"#), "\(refused)")
      #expect(
        refused.contains { $0.contains(#""code":"auth_refused""#) && $0.contains("not in that room") },
        "\(refused)")
      #expect(refused.last == "QUIET", "\(refused)")
    }
  }

  @Test func aFirstLineThatIsNotANameAsksWithNoneAndIsDeliveredOnceAdmitted() async throws {
    let backend = try await Backend(rules: #"{"": {"allow": true, "name": "anon"}}"#)
    try await withProxy(backend) { server in
      let alice = try line(server)
      try alice.join(as: "alice")
      let quiet = try line(server)
      try quiet.sendLine("hello before a name")
      try quiet.expectLine("* you are now anon")
      try alice.expectLine("anon: hello before a name")
    }
  }

  @Test func webSocketsAreAdmittedRenamedAndRefusedWithTheReason() async throws {
    let backend = try await Backend()
    try await withProxy(backend) { server in
      let base = "ws://127.0.0.1:\(server.http)"
      let alice = try await pythonWS(["\(base)/?name=alice"])
      #expect(alice.first == "OPEN")
      #expect(alice.contains(#"FRAME {"type":"name","data":"alice"}"#), "\(alice)")
      let carol = try await pythonWS(["\(base)/?name=carol"])
      #expect(carol.contains(#"FRAME {"type":"name","data":"Carol (app)"}"#), "\(carol)")
      let bob = try await pythonWS(["\(base)/?name=bob"])
      #expect(bob.last == "CLOSE 4003 banned", "\(bob)")
      #expect(bob.contains { $0.contains(#""auth_refused""#) }, "\(bob)")
      // The seed protocol's first plain frame is the name, asked about then.
      let bobByFrame = try await pythonWS(["\(base)/", "--send", "bob"])
      #expect(bobByFrame.last == "CLOSE 4003 banned", "\(bobByFrame)")
      // No name at all: the backend decides by the upgrade's cookie.
      let good = try await pythonWS(["\(base)/", "--cookie", "session=good", "--send", #"{"type":"who"}"#])
      #expect(good.contains(#"FRAME {"type":"name","data":"cookie-user"}"#), "\(good)")
      #expect(
        good.contains { $0.hasPrefix(#"FRAME {"type":"members""#) && $0.contains("cookie-user") }, "\(good)")
      let bad = try await pythonWS(["\(base)/", "--cookie", "session=stolen", "--send", "{\"type\":\"who\"}"])
      #expect(bad.last == "CLOSE 4003 log in first", "\(bad)")
      let asked = try backend.requests().first {
        ($0["headers"] as? [String: Any])?["cookie"] as? String == "session=good"
      }
      #expect(asked?["transport"] as? String == "websocket")
      #expect((asked?["query"] as? [String: Any])?.isEmpty == true)
    }
  }

  @Test func aTokenHoldersClaimsAreSentAndTheBackendMayRenameIt() async throws {
    let backend = try await Backend(rules: #"{"alice": {"allow": true, "name": "Alice (verified)"}}"#)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "authproxy-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let secretFile = directory.appendingPathComponent("secret").path
    try Data(TestTokens.secret).write(to: URL(fileURLWithPath: secretFile))
    try await withProxy(backend, ["--auth-secret-file", secretFile]) { server in
      let c = try line(server)
      try c.sendLine("auth:" + TestTokens.token())
      try c.expectLine("* authenticated as Alice (verified)")
      try c.sendLine("/who")
      try c.expectLine { $0.hasPrefix("* in lobby") && $0.hasSuffix("Alice (verified)") }
      let asked = try #require(try backend.requests().first)
      #expect(asked["name"] as? String == "alice")
      #expect((asked["claims"] as? [String: Any])?["sub"] as? String == "alice")
      #expect((asked["claims"] as? [String: Any])?["rooms"] as? [String] == ["lobby", "team-*"])
      // The WebSocket's token rides in the query; the backend sees its claims, not the token.
      let ws = try await pythonWS(["ws://127.0.0.1:\(server.http)/?token=" + TestTokens.token()])
      #expect(ws.contains(#"FRAME {"type":"name","data":"Alice (verified)"}"#), "\(ws)")
      let wsAsked = try #require(try backend.requests().last)
      #expect((wsAsked["query"] as? [String: Any])?["token"] == nil)
      #expect((wsAsked["claims"] as? [String: Any])?["sub"] as? String == "alice")
    }
  }

  @Test(.enabled(ifAvailable: PeerScriptTests.chromium != nil, "needs chromium"))
  func chromiumShowsTheBackendsRefusalOnThePage() async throws {
    let backend = try await Backend()
    try await withProxy(backend) { server in
      let peer = try ChildProcess(
        PeerScriptTests.python!,
        [
          "\(PeerScriptTests.peersDirectory)/browser_auth_proxy.py", "\(server.http)", "\(server.tcp)",
          "--timeout", "150",
        ])
      let status = try await peer.waitForExit(timeout: .seconds(210))
      #expect(status == 0, "\(peer.stdout.suffix(800)) \(peer.stderr.suffix(800))")
    }
  }

  @Test func theUDPPortIsClosedToChatBehindAProxy() async throws {
    let backend = try await Backend()
    try await withProxy(backend) { server in
      let udp = try DatagramPeer(SocketAddress(host: "127.0.0.1", port: server.udp))
      // Long enough that the answer fits the three-times budget of an unproven address.
      try udp.send("iam:alice and a few more words to pay for the answer")
      #expect(
        try udp.receive()
          == "! authorization required: the UDP port is closed to chat behind an auth proxy (use tcp://, tls:// or ws://)\n"
      )
      #expect(try backend.requestCount() == 0)
    }
  }

  @Test func aSlowBrokenOrStoppedBackendRefuses() async throws {
    let backend = try await Backend()
    try await withProxy(backend, ["--auth-proxy-timeout", "0.5"]) { server in
      for name in ["slow", "broken", "garbage"] {
        let c = try line(server)
        try c.sendLine("iam:\(name)")
        try c.expectLine("! authorization unavailable")
        try c.expectClosed()
      }
      let ws = try await pythonWS(["ws://127.0.0.1:\(server.http)/?name=slow"])
      #expect(ws.last == "CLOSE 1013 authorization unavailable", "\(ws)")
      // Killed: nothing listens on its port any more (a SIGTERM would wait for the slow answers).
      backend.process.signal(SIGKILL)
      _ = try await backend.process.waitForExit()
      let stopped = try line(server)
      try stopped.sendLine("iam:alice")
      try stopped.expectLine("! authorization unavailable")
      let metrics = try runTool(["curl", "-s", "http://127.0.0.1:\(server.http)/metrics"])
      #expect(metrics.contains("switchboard_auth_proxy_failures_total 5"), "\(metrics)")
    }
  }

  @Test func answersAreCachedForTheirTimeOnly() async throws {
    let backend = try await Backend()
    // Long enough that the three connections below fit in it on a loaded machine.
    try await withProxy(backend, ["--auth-proxy-cache", "10"]) { server in
      let first = try line(server)
      try first.join(as: "erin")
      let second = try line(server)
      try second.join(as: "erin")
      #expect(try backend.requestCount() == 1)
      // Refused now, but the cached admission holds until it expires.
      try backend.setRules(#"{"erin": {"allow": false, "reason": "gone"}}"#)
      let third = try line(server)
      try third.join(as: "erin")
      #expect(try backend.requestCount() == 1)
      try await eventually(timeout: .seconds(40), "the cached answer to expire") {
        let c = try line(server)
        try c.sendLine("iam:erin")
        return (try? c.readLine(timeout: .seconds(5))) == "! gone"
      }
    }
  }

  @Test func aBurstWaitingOnASlowBackendStallsNoOtherMember() async throws {
    let backend = try await Backend()
    try await withProxy(backend, ["--auth-proxy-timeout", "20"]) { server in
      let alice = try line(server)
      try alice.join(as: "alice")
      let dave = try line(server)
      try dave.join(as: "dave")
      // Fifty connections whose answers take 30 s, each sending more after its name.
      var waiting: [LineClient] = []
      for _ in 0..<50 {
        let c = try line(server)
        try c.sendLine("iam:slow")
        try c.sendLine("held until admitted")
        waiting.append(c)
      }
      try await eventually(timeout: .seconds(20), "the backend to be asked 50 times") {
        try backend.requestCount() >= 52
      }
      // Meanwhile the room keeps its pace, and none of the held lines reached it.
      for n in 0..<20 {
        try alice.sendLine("ping \(n)")
        try dave.expectLine("alice: ping \(n)", timeout: .seconds(2))
      }
      #expect(!dave.expectSilence(for: .milliseconds(200)).contains { $0.contains("held until admitted") })
      #expect(waiting.allSatisfy { !$0.closedByPeer })
    }
  }
}
