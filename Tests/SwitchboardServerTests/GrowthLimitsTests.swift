import Foundation
import SwitchboardAuth
import SwitchboardIO
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// The bounds on what members make grow, against the real binary on real sockets:
/// `--max-rooms` (rooms kept in memory and on disk), `--max-joins-per-minute`, and
/// `--history-max-bytes` (the history database's size), each answered and counted in
/// `/metrics` (docs/BAD-INPUT.md).
@Suite(.onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "build the switchboard executable first"))
struct GrowthLimitsTests {
  let binary = Executables.switchboard ?? ""

  private struct Server {
    let process: ServeProcess
    var tcp: Int { process.tcp }
    var http: Int { process.http }
    var line: SocketAddress { get throws { try SocketAddress(host: "127.0.0.1", port: tcp) } }
    var web: SocketAddress { get throws { try SocketAddress(host: "127.0.0.1", port: http) } }
  }

  /// `serve` on loopback with `extra` flags (`--ephemeral` unless a data directory is given).
  private func serve(_ extra: [String], dataDir: String? = nil) async throws -> Server {
    let store = dataDir.map { ["--data-dir", $0] } ?? ["--ephemeral"]
    return Server(process: try await ServeProcess.start(store + extra, listeners: [.tcp, .http]))
  }

  private func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("sb-growth-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// A row of `/metrics`.
  private func metric(_ name: String, port: Int) throws -> Int {
    let scrape = try LineClient(try SocketAddress(host: "127.0.0.1", port: port))
    try scrape.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    let row = try scrape.expectLine { $0.hasPrefix(name + " ") }
    guard let value = Int(row.split(separator: " ")[1]) else { throw TestFailure("no figure in \(row)") }
    return value
  }

  /// Sends `/join ROOM` and returns the answer (`* you are now in …` or `! …`).
  private func join(_ client: LineClient, _ room: String) throws -> String {
    try client.sendLine("/join \(room)")
    return try client.expectLine { $0.hasPrefix("* you are now in ") || $0.hasPrefix("! ") }
  }

  @Test func aJoinLoopStopsAtMaxRoomsAndKeptRoomsStillWork() async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // Five rooms: the default room and r1 … r4.
    let flags = ["--max-rooms", "5", "--max-joins-per-minute", "0"]
    var server = try await serve(flags, dataDir: dir)
    let client = try LineClient(try server.line)
    var answers: [String] = []
    for i in 1...8 { answers.append(try join(client, "r\(i)")) }
    #expect(answers[..<4].allSatisfy { $0.hasPrefix("* you are now in r") }, "\(answers)")
    #expect(
      answers[4...].allSatisfy { $0 == "! too many rooms (this server keeps at most 5); join an existing room" },
      "\(answers)")
    // Kept rooms still work.
    #expect(try join(client, "r2").hasPrefix("* you are now in r2"))
    #expect(try join(client, "lobby").hasPrefix("* you are now in lobby"))
    // A JSON join and an upgrade to a new room are answered too.
    let web = try WebSocketTestClient(try server.web)
    _ = try web.nextJSON(type: "history")
    try web.send(text: #"{"type":"join","data":{"room":"r9"}}"#)
    let error = try web.nextJSON(type: "error")
    #expect((error["data"] as? [String: Any])?["code"] as? String == "too_many_rooms")
    #expect(throws: (any Error).self) { _ = try WebSocketTestClient(try server.web, path: "/rooms/r10") }
    let raw = try LineClient(try server.web)
    try raw.send(
      "GET /rooms/r11 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    #expect(try raw.readLine().hasPrefix("HTTP/1.1 503"))
    #expect(try metric("switchboard_rooms_refused_total", port: server.http) >= 6)
    #expect(try metric("switchboard_rooms_known", port: server.http) == 5)
    withExtendedLifetime(web) {}

    // On disk: after a restart the kept rooms still count, and still work.
    server.process.stop()
    server = try await serve(flags, dataDir: dir)
    defer { server.process.stop() }
    let again = try LineClient(try server.line)
    #expect(try join(again, "r5").hasPrefix("! too many rooms"))
    #expect(try join(again, "r3").hasPrefix("* you are now in r3"))
  }

  @Test func joinsPastThePerMinuteLimitAreRefusedAndCounted() async throws {
    let server = try await serve(["--max-joins-per-minute", "3"])
    defer { server.process.stop() }
    let client = try LineClient(try server.line)
    let answers = try (1...4).map { try join(client, "j\($0)") }
    #expect(answers[..<3].allSatisfy { $0.hasPrefix("* you are now in j") }, "\(answers)")
    #expect(answers[3] == "! too many room joins (at most 3 a minute); try again in a moment")
    // Another connection has its own minute.
    let other = try LineClient(try server.line)
    #expect(try join(other, "j4").hasPrefix("* you are now in j4"))
    // The JSON protocol's joins count the same way.
    let web = try WebSocketTestClient(try server.web)
    _ = try web.nextJSON(type: "history")
    for room in ["k1", "k2", "k3"] {
      try web.send(text: #"{"type":"join","data":{"room":"\#(room)"}}"#)
      _ = try web.nextJSON(type: "history") { ($0["data"] as? [Any]) != nil }
    }
    try web.send(text: #"{"type":"join","data":{"room":"k4"}}"#)
    let error = try web.nextJSON(type: "error")
    #expect((error["data"] as? [String: Any])?["code"] as? String == "too_many_joins")
    #expect(try metric("switchboard_joins_rate_limited_total", port: server.http) == 2)
  }

  @Test func theHistoryByteCapHoldsTheDatabaseAndIsCounted() async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let cap = 256 << 10
    let server = try await serve(["--history-max-bytes", "\(cap)"], dataDir: dir)
    defer { server.process.stop() }
    #expect(try metric("switchboard_history_max_bytes", port: server.http) == cap)
    let web = try WebSocketTestClient(try server.web)
    _ = try web.nextJSON(type: "history")
    try web.send(text: "writer")
    // 8 KiB messages with refs until one is answered "not stored": the database is full.
    let text = String(repeating: "x", count: 8 << 10)
    var refused: [String: Any]? = nil
    for ref in 1...200 where refused == nil {
      try web.send(text: #"{"type":"message","data":{"text":"\#(text)","ref":\#(ref)}}"#)
      while true {
        let frame = try JSONSerialization.jsonObject(with: Data(try web.nextText(timeout: .seconds(10)).utf8))
        guard let object = frame as? [String: Any] else { continue }
        if object["type"] as? String == "ack" { break }
        if object["type"] as? String == "error" {
          refused = object["data"] as? [String: Any]
          break
        }
      }
    }
    let answer = try #require(refused, "200 messages of 8 KiB were all stored under a 256 KiB cap")
    #expect(answer["code"] as? String == "not_stored")
    #expect(try metric("switchboard_history_full_total", port: server.http) >= 1)
    let size = try FileManager.default.attributesOfItem(atPath: dir + "/history.sqlite3")[.size] as? Int ?? 0
    #expect(size <= cap, "history.sqlite3 is \(size) bytes")
  }

  @Test(.enabled(ifAvailable: TokenSupport.isAvailable, "needs a crypto library for tokens (TokenSupport)"))
  func upgradesWithARefusedTokenTakeNoRoom() async throws {
    try await withServer({
      $0.tokenVerifier = TestTokens.verifier
      $0.limits.maxRooms = 2
    }) { server in
      // Refused tokens asking for ever new rooms: each refused, none kept.
      for i in 1...5 {
        let refused = try WebSocketTestClient(
          server.httpAddress!, path: "/rooms/team-x\(i)?token=\(TestTokens.token(key: TestTokens.otherKey))")
        #expect(try refused.nextClose() == .policyViolation)
      }
      // The one room left under the cap (the default room is the other) is still there.
      let good = try WebSocketTestClient(
        server.httpAddress!, path: "/rooms/team-a?token=\(TestTokens.token())")
      let history = try good.nextJSON(type: "history")
      #expect(history["data"] is [Any])
      // And now the cap is reached.
      let raw = try LineClient(server.httpAddress!)
      try raw.send(
        "GET /rooms/team-b?token=\(TestTokens.token()) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
          + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
      #expect(try raw.readLine().hasPrefix("HTTP/1.1 503"))
    }
  }
}
