import Foundation
import SwitchboardChat
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardServer
import SwitchboardTestSupport
import SwitchboardWebSocket
import Synchronization
import Testing

/// A local broker whose health the test sets, and whose publishes are never answered
/// while `stalled` (a broker that lost its server mid-request).
private final class StallingBroker: ForwardingBroker, @unchecked Sendable {
  let current = Mutex(BrokerHealth.ready)
  let stalled = Atomic<Bool>(false)

  override var health: BrokerHealth { current.withLock { $0 } }

  override func publish(
    _ draft: MessageDraft, on executor: (any ShardExecutor)?,
    completion: (@Sendable (Result<PublishReceipt, BrokerError>) -> Void)?
  ) {
    guard !stalled.load(ordering: .relaxed) else { return }
    super.publish(draft, on: executor, completion: completion)
  }
}

/// One HTTP request to the server API over a fresh socket: the status, the response's
/// headers and its body parsed as JSON.
struct APIAnswer {
  var status: Int
  var headers: HTTPHeaders
  var body: [UInt8]
  var json: [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
  }
  var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
}

func apiRequest(
  _ address: SocketAddress, _ method: String, _ path: String, key: String? = ServerAPITests.key,
  body: String? = nil, headers: [String] = []
) throws -> APIAnswer {
  let c = try LineClient(address)
  var request = "\(method) \(path) HTTP/1.1\r\nHost: backend.internal.example\r\nConnection: close\r\n"
  if let key { request += "Authorization: Bearer \(key)\r\n" }
  for header in headers { request += header + "\r\n" }
  if let body { request += "Content-Length: \(body.utf8.count)\r\n" }
  try c.send(request + "\r\n" + (body ?? ""))
  var parser = HTTPResponseParser()
  let deadline = ContinuousClock.now + .seconds(10)
  while ContinuousClock.now < deadline {
    c.fill(timeout: .milliseconds(100))
    parser.append(c.takeBuffered())
    if let head = try parser.next() {
      // The body: Content-Length bytes after the head.
      let length = Int(head.headers["Content-Length"] ?? "0") ?? 0
      var body = parser.takeRemainingBytes()
      while body.count < length, ContinuousClock.now < deadline {
        c.fill(timeout: .milliseconds(100))
        body += c.takeBuffered()
      }
      return APIAnswer(status: head.status, headers: head.headers, body: Array(body.prefix(length)))
    }
  }
  throw TestFailure("no answer to \(method) \(path)")
}

/// The server API (docs/API.md) on one node, in process: its keys, its errors, and that a
/// publish reaches members of every transport like a member's message.
@Suite(.onTestThreads)
struct ServerAPITests {
  static let key = "test-key-0123456789abcdef"
  static let otherKey = "rotated-key-0123456789abcdef"

  private func withAPI<T>(_ body: (ChatServer) async throws -> T) async throws -> T {
    try await withServer({ $0.api.keys = ServerAPIKeys([Self.key, Self.otherKey]) }, body)
  }

  /// A WebSocket member called `web` and a line member called `line`, both in the lobby.
  private func webAndLineMembers(_ server: ChatServer, web: String, line: String) throws
    -> (WebSocketTestClient, LineClient)
  {
    let ws = try WebSocketTestClient(server.httpAddress!)
    try ws.send(text: web)
    _ = try ws.nextJSON(type: "color")
    let tcp = try LineClient(server.tcpAddress!)
    try tcp.join(as: line)
    return (ws, tcp)
  }

  @Test func theAPIIsOffWithoutAKey() async throws {
    try await withServer { server in
      let answer = try apiRequest(server.httpAddress!, "GET", "/api/info")
      #expect(answer.status == 404)
      #expect(answer.errorCode == "api_disabled")
      #expect(answer.headers["Content-Type"] == "application/json")
    }
  }

  @Test func aMissingOrWrongKeyIs401WithWWWAuthenticate() async throws {
    try await withAPI { server in
      let none = try apiRequest(server.httpAddress!, "GET", "/api/info", key: nil)
      #expect(none.status == 401)
      #expect(none.errorCode == "unauthorized")
      #expect(none.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
      let wrong = try apiRequest(server.httpAddress!, "GET", "/api/info", key: Self.key + "x")
      #expect(wrong.status == 401)
      let basic = try apiRequest(server.httpAddress!, "GET", "/api/info", key: nil, headers: ["Authorization: Basic \(Self.key)"])
      #expect(basic.status == 401)
      #expect(server.metrics.api.unauthorized.load(ordering: .relaxed) == 3)
      // Every listed key works, in either header.
      #expect(try apiRequest(server.httpAddress!, "GET", "/api/info", key: Self.otherKey).status == 200)
      let header = try apiRequest(server.httpAddress!, "GET", "/api/info", key: nil, headers: ["X-API-Key: \(Self.key)"])
      #expect(header.status == 200)
    }
  }

  @Test func badRequestsGetTheirDocumentedErrors() async throws {
    try await withAPI { server in
      let a = server.httpAddress!
      let json = "Content-Type: application/json"
      #expect(try apiRequest(a, "POST", "/api/publish", body: "{\"room\":", headers: [json]).errorCode == "bad_json")
      #expect(try apiRequest(a, "POST", "/api/publish", body: "[1]", headers: [json]).errorCode == "bad_json")
      let missing = try apiRequest(a, "POST", "/api/publish", body: #"{"room":"lobby"}"#, headers: [json])
      #expect(missing.status == 400)
      #expect(missing.errorCode == "bad_request")
      let badRoom = try apiRequest(a, "POST", "/api/publish", body: #"{"room":"no spaces","text":"x"}"#, headers: [json])
      #expect(badRoom.status == 400)
      #expect(badRoom.errorCode == "bad_room")
      let badAuthor = try apiRequest(a, "POST", "/api/publish", body: #"{"room":"lobby","text":"x","author":"! x"}"#)
      #expect(badAuthor.errorCode == "bad_request")
      let form = try apiRequest(a, "POST", "/api/publish", body: "room=lobby", headers: ["Content-Type: application/x-www-form-urlencoded"])
      #expect(form.status == 415)
      let huge = String(repeating: "x", count: ServerAPIConfiguration.maxBodySize)
      let tooLarge = try apiRequest(a, "POST", "/api/publish", body: #"{"room":"lobby","text":"\#(huge)"}"#, headers: [json])
      #expect(tooLarge.status == 413)
      #expect(tooLarge.errorCode == "body_too_large")
      let wrongMethod = try apiRequest(a, "GET", "/api/publish")
      #expect(wrongMethod.status == 405)
      #expect(wrongMethod.headers["Allow"] == "POST")
      #expect(try apiRequest(a, "DELETE", "/api/rooms").headers["Allow"] == "GET, HEAD")
      #expect(try apiRequest(a, "GET", "/api/nothing").errorCode == "not_found")
      let unknown = try apiRequest(a, "GET", "/api/rooms/never-made/presence")
      #expect(unknown.status == 404)
      #expect(unknown.errorCode == "unknown_room")
      #expect(try apiRequest(a, "GET", "/api/rooms/never-made/history").errorCode == "unknown_room")
      #expect(try apiRequest(a, "GET", "/api/rooms/lobby/history?limit=0").errorCode == "bad_request")
      #expect(try apiRequest(a, "GET", "/api/rooms/lobby/history?since=x").errorCode == "bad_request")
      // The server still serves.
      #expect(try apiRequest(a, "GET", "/api/info").status == 200)
    }
  }

  @Test func aPublishReachesWebSocketLineAndUDPMembersOnceWithOneID() async throws {
    try await withAPI { server in
      let (ws, tcp) = try webAndLineMembers(server, web: "webuser", line: "ncuser")
      let udp = try DatagramPeer(server.udpAddress!)
      try udp.prove()
      try udp.send("iam:udpuser")
      try await eventually { server.hub.who(room: "lobby").contains("udpuser") }
      let answer = try apiRequest(
        server.httpAddress!, "POST", "/api/publish", body: #"{"room":"lobby","text":"your order shipped","author":"shop"}"#,
        headers: ["Content-Type: application/json"])
      #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
      let id = (answer.json["id"] as? NSNumber)?.intValue
      #expect(id != nil)
      #expect(answer.json["epoch"] as? String != nil)
      let m = try ws.nextJSON(type: "message")["data"] as? [String: Any] ?? [:]
      #expect(m["author"] as? String == "shop")
      #expect(m["text"] as? String == "your order shipped")
      #expect((m["id"] as? NSNumber)?.intValue == id)
      try tcp.expectLine("shop: your order shipped")
      _ = try udp.expect { $0.contains("shop: your order shipped") }
      // Once: nothing more arrives.
      #expect(tcp.expectSilence(for: .milliseconds(300)).isEmpty)
      // History over the API shows it with the epoch members see.
      let history = try apiRequest(server.httpAddress!, "GET", "/api/rooms/lobby/history?since=0")
      let messages = history.json["messages"] as? [[String: Any]] ?? []
      #expect(messages.last?["text"] as? String == "your order shipped")
      #expect((messages.last?["id"] as? NSNumber)?.intValue == id)
      #expect(history.json["epoch"] as? String == answer.json["epoch"] as? String)
    }
  }

  @Test func aRetriedRefIsKeptOnce() async throws {
    try await withAPI { server in
      let tcp = try LineClient(server.tcpAddress!)
      try tcp.join(as: "ncuser")
      let body = #"{"room":"lobby","text":"once","ref":"order-17"}"#
      let first = try apiRequest(server.httpAddress!, "POST", "/api/publish", body: body)
      let second = try apiRequest(server.httpAddress!, "POST", "/api/publish", body: body)
      #expect(first.status == 200)
      #expect((first.json["id"] as? NSNumber) == (second.json["id"] as? NSNumber))
      try tcp.expectLine("app: once")
      #expect(tcp.expectSilence(for: .milliseconds(300)).isEmpty)
    }
  }

  @Test func aPublishToARoomNobodyOpenedIsKeptAndListed() async throws {
    try await withAPI { server in
      let answer = try apiRequest(server.httpAddress!, "POST", "/api/publish", body: #"{"room":"news","text":"first"}"#)
      #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
      #expect((answer.json["id"] as? NSNumber)?.intValue == 1)
      let history = try apiRequest(server.httpAddress!, "GET", "/api/rooms/news/history")
      #expect((history.json["messages"] as? [[String: Any]])?.map { $0["text"] as? String } == ["first"])
      // A member who joins later is shown it.
      let ws = try WebSocketTestClient(server.httpAddress!, path: "/rooms/news")
      let replay = try ws.nextJSON(type: "history")
      #expect(((replay["data"] as? [[String: Any]])?.first?["text"]) as? String == "first")
    }
  }

  @Test func broadcastAnswersOneResultPerRoom() async throws {
    try await withAPI { server in
      let answer = try apiRequest(
        server.httpAddress!, "POST", "/api/broadcast", body: #"{"rooms":["lobby","news","bad room"],"text":"hello all"}"#)
      #expect(answer.status == 200)
      let results = answer.json["results"] as? [[String: Any]] ?? []
      try #require(results.count == 3)
      #expect(results[0]["id"] != nil)
      #expect(results[1]["room"] as? String == "news")
      #expect(((results[2]["error"] as? [String: Any])?["code"]) as? String == "bad_room")
    }
  }

  @Test func roomsPresenceAndInfoDescribeTheMembers() async throws {
    try await withAPI { server in
      let (ws, tcp) = try webAndLineMembers(server, web: "webuser", line: "ncuser")
      let rooms = try apiRequest(server.httpAddress!, "GET", "/api/rooms").json["rooms"] as? [[String: Any]] ?? []
      #expect(rooms.map { $0["room"] as? String } == ["lobby"])
      #expect((rooms.first?["members"] as? NSNumber)?.intValue == 2)
      #expect(rooms.first?["lastId"] != nil)
      let presence = try apiRequest(server.httpAddress!, "GET", "/api/rooms/lobby/presence").json
      let members = presence["members"] as? [[String: Any]] ?? []
      #expect(members.map { $0["name"] as? String } == ["ncuser", "webuser"])
      #expect(members.map { $0["transport"] as? String } == ["tcp", "ws"])
      #expect((members.first?["since"] as? String)?.hasSuffix("Z") == true)
      let info = try apiRequest(server.httpAddress!, "GET", "/api/info").json
      #expect((info["members"] as? NSNumber)?.intValue == 2)
      #expect((info["rooms"] as? NSNumber)?.intValue == 1)
      #expect(((info["connections"] as? [String: Any])?["ws"] as? NSNumber)?.intValue == 1)
      #expect(info["uptimeSeconds"] != nil)
      #expect(info["version"] != nil)
    }
  }

  @Test func disconnectClosesEveryConnectionOfTheUserWithTheDocumentedAnswer() async throws {
    try await withAPI { server in
      let (ws, tcp) = try webAndLineMembers(server, web: "mallory", line: "mallory")
      let udp = try DatagramPeer(server.udpAddress!)
      try udp.prove()
      try udp.send("iam:mallory")
      let bystander = try LineClient(server.tcpAddress!)
      try bystander.join(as: "bob")
      try await eventually { server.hub.who(room: "lobby").filter { $0.hasPrefix("mallory") }.count == 3 }
      let answer = try apiRequest(
        server.httpAddress!, "POST", "/api/disconnect", body: #"{"user":"mallory","reason":"account closed"}"#)
      #expect(answer.status == 200)
      #expect((answer.json["closed"] as? NSNumber)?.intValue == 3)
      #expect(try ws.nextClose() == WebSocketCloseCode(4001))
      try tcp.expectLine("* disconnected by the server: account closed")
      try tcp.expectClosed()
      _ = try udp.expect { $0.contains("* disconnected by the server: account closed") }
      try await eventually { !server.hub.who(room: "lobby").contains { $0.hasPrefix("mallory") } }
      // Nobody else is touched; a name nobody has closes nothing.
      let none = try apiRequest(server.httpAddress!, "POST", "/api/disconnect", body: #"{"user":"nobody"}"#)
      #expect((none.json["closed"] as? NSNumber)?.intValue == 0)
      try bystander.sendLine("/who")
      try bystander.expectLine { $0.hasPrefix("* in ") && !$0.contains("mallory") }
      #expect(try apiRequest(server.httpAddress!, "POST", "/api/disconnect", body: #"{"room":"lobby"}"#).status == 400)
    }
  }

  @Test func theAPIAnswersAnyHostThePageDoesNot() async throws {
    // The Host check (DNS rebinding) guards pages; backends call by names nobody lists,
    // and the key is the API's protection.
    try await withAPI { server in
      let (page, _) = try rawRequestStatus(server.httpAddress!, path: "/", host: "backend.internal.example")
      #expect(page == 421)
      #expect(try apiRequest(server.httpAddress!, "GET", "/api/info").status == 200)
    }
  }

  /// The broker unavailable: 503 at once; a broker that never answers: 504 after the
  /// API's timeout, the connection closed, and the server still serving.
  @Test func anUnavailableOrSilentBrokerIs503Or504() async throws {
    let broker = StallingBroker()
    try await withServer({
      $0.api.keys = ServerAPIKeys([Self.key])
      $0.api.timeout = .milliseconds(300)
      $0.broker = { _ in broker }
    }) { server in
      let body = #"{"room":"lobby","text":"hello"}"#
      broker.current.withLock { $0 = .unavailable(since: 0, reason: "redis unreachable") }
      let down = try apiRequest(server.httpAddress!, "POST", "/api/publish", body: body)
      #expect(down.status == 503)
      #expect(down.errorCode == "unavailable")
      broker.current.withLock { $0 = .ready }
      // Opened first (the load answers), then stalled: the publish itself gets no answer.
      #expect(try apiRequest(server.httpAddress!, "POST", "/api/publish", body: body).status == 200)
      broker.stalled.store(true, ordering: .relaxed)
      let silent = try apiRequest(server.httpAddress!, "POST", "/api/publish", body: body)
      #expect(silent.status == 504)
      #expect(silent.errorCode == "timeout")
      #expect(silent.headers["Connection"] == "close")
      #expect(try apiRequest(server.httpAddress!, "GET", "/api/info").status == 200)
      #expect(server.metrics.api.timeouts.load(ordering: .relaxed) == 1)
      #expect(server.metrics.api.failed.load(ordering: .relaxed) == 2)
    }
  }
}
