import Foundation
import SwitchboardClient
import SwitchboardIO
import SwitchboardRedis
import SwitchboardTestSupport
import Testing

/// The server API (docs/API.md) on three `serve --redis` nodes behind one `redis-server`:
/// `curl` publishes on one node and members on the others — a WebSocket client, an `nc`
/// style line member, a UDP member — each receive it once, with the id the API answered.
@Suite(
  .serialized,
  .enabled(
    ifAvailable: Executables.switchboard != nil && RedisServer.isInstalled && Executables.tool("curl") != nil,
    "needs the switchboard binary, redis-server and curl"),
  .onTestThreads)
struct ServerAPIScaleOutTests {
  static let key = "cluster-key-0123456789abcdef"

  /// `curl` against `node`'s API: its output (the body).
  private func curl(_ node: ScaleOutNode, _ path: String, json: String? = nil) throws -> String {
    var arguments = ["-sS", "-H", "Authorization: Bearer \(Self.key)"]
    if let json { arguments += ["--json", json] }
    let process = try ChildProcess(Executables.tool("curl")!, arguments + ["http://127.0.0.1:\(node.httpPort)\(path)"])
    #expect(try process.waitForExit() == 0, "\(process.stderr)")
    return process.stdout
  }

  /// One `redis-server` (or a Redis Cluster) and three ready nodes with the API on.
  private func threeNodes(_ kind: ScaleOutRedis.Kind = .single) async throws -> (ScaleOutRedis, [ScaleOutNode]) {
    let redis = try ScaleOutRedis(kind)
    var nodes: [ScaleOutNode] = []
    for _ in 0..<3 {
      nodes.append(try await ScaleOutNode(redisPorts: redis.ports, arguments: ["--api-key", Self.key]))
    }
    for node in nodes { _ = try node.waitForReadiness(200) }
    return (redis, nodes)
  }

  /// A library client called `name` in the room `chaos` of `node`, over WebSocket.
  private func webMember(_ name: String, on node: ScaleOutNode) throws -> ChatWatcher {
    ChatWatcher(
      try ChatClient(
        url: "ws://127.0.0.1:\(node.httpPort)/rooms/chaos", name: name,
        configuration: ChatClient.Configuration(connectTimeout: .seconds(5), heartbeat: .disabled)))
  }

  /// The members in `node`'s answer to `/api/rooms/ROOM/presence`, by name.
  private func presence(_ node: ScaleOutNode, _ room: String) throws -> [String: [String: Any]] {
    let answer = try curl(node, "/api/rooms/\(room)/presence")
    let object = try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]
    let members = try #require(object?["members"] as? [[String: Any]], "\(answer)")
    return Dictionary(members.compactMap { member in (member["name"] as? String).map { ($0, member) } }) { a, _ in a }
  }

  @Test func aPublishOnOneNodeReachesEveryTransportOnTheOthersOnceWithItsID() async throws {
    let (redis, nodes) = try await threeNodes()
    defer { withExtendedLifetime(redis) {} }
    // Whole seconds either side: `since` is the node's clock in milliseconds.
    let start = Date().addingTimeInterval(-1)
    let web = try webMember("web", on: nodes[1])
    let line = try RawChatPeer(.tcp, port: nodes[2].tcpPort, name: "nc")
    let datagram = try RawChatPeer(.udp, port: nodes[2].udpPort, name: "udp")
    try web.waitConnected()
    // Each node's own presence lists its members once they are in the room.
    try await eventually("the members joined") {
      let one = try curl(nodes[1], "/api/rooms/chaos/presence")
      let two = try curl(nodes[2], "/api/rooms/chaos/presence")
      return one.contains(#""name":"web""#) && two.contains(#""name":"nc""#) && two.contains(#""name":"udp""#)
    }
    // Presence on a node with nobody in the room lists every node's members, with their node.
    let end = Date().addingTimeInterval(1)
    let everyone = try curl(nodes[0], "/api/rooms/chaos/presence")
    for name in ["web", "nc", "udp"] { #expect(everyone.contains(#""name":"\#(name)""#), "\(everyone)") }
    // …with how each is connected and since when, as its own node tells it.
    let remote = try presence(nodes[0], "chaos")
    let one = try presence(nodes[1], "chaos")
    let two = try presence(nodes[2], "chaos")
    let times = ISO8601DateFormatter()
    times.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    for (name, transport, home) in [("web", "ws", one), ("nc", "tcp", two), ("udp", "udp", two)] {
      let member = try #require(remote[name], "\(everyone)")
      #expect(member["transport"] as? String == transport, "\(everyone)")
      let node = try #require(home[name]?["node"] as? String)
      #expect(member["node"] as? String == node && !node.isEmpty, "\(everyone)")
      #expect(member["since"] as? String == home[name]?["since"] as? String, "\(everyone)")
      let since = try #require((member["since"] as? String).flatMap { times.date(from: $0) }, "\(everyone)")
      #expect(since >= start && since <= end, "\(since) outside \(start)…\(end)")
    }
    #expect(!everyone.contains("null"), "\(everyone)")
    // An entry in the earlier form (a node of the previous version) still reads: its member
    // with its node, and no transport or time.
    let members = RedisRoomKeys(room: "chaos").members
    let expiry = String(Int64(Date().timeIntervalSince1970 * 1000) + 60_000)
    try redis.cli("ZADD", members, expiry, "oldnode|9|veteran")
    let veteran = try #require(try presence(nodes[0], "chaos")["veteran"])
    #expect(veteran["node"] as? String == "oldnode")
    #expect(veteran["transport"] is NSNull && veteran["since"] is NSNull, "\(veteran)")
    try redis.cli("ZREM", members, "oldnode|9|veteran")
    // So does the room list: the room and its members on every node.
    let rooms = try curl(nodes[0], "/api/rooms")
    #expect(rooms.contains(#""members":3"#) && rooms.contains(#""room":"chaos""#), "\(rooms)")
    let answer = try curl(nodes[0], "/api/publish", json: #"{"room":"chaos","text":"order shipped","author":"shop"}"#)
    let object = try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]
    let id = try #require((object?["id"] as? NSNumber)?.uint64Value, "\(answer)")
    try web.waitForTexts(["order shipped"])
    #expect(web.messages.filter { $0.text == "order shipped" }.map(\.id) == [id])
    try line.waitFor("the publish") { $0.contains("shop: order shipped") }
    try datagram.waitFor("the publish") { $0.contains { $0.hasSuffix("shop: order shipped") } }
    // Once each: a later member message arrives after it, and nothing repeated it.
    line.send("after")
    try web.waitForTexts(["after"])
    try datagram.waitFor("the later message") { $0.contains { $0.hasSuffix("nc: after") } }
    #expect(line.lines.filter { $0 == "shop: order shipped" }.count == 1)
    #expect(datagram.lines.filter { $0.hasSuffix("shop: order shipped") }.count == 1)
    #expect(web.messages.filter { $0.text == "order shipped" }.count == 1)
    // History over the API on another node keeps it with the same id.
    let history = try curl(nodes[2], "/api/rooms/chaos/history?since=0")
    #expect(history.contains(#""id":\#(id)"#) && history.contains("order shipped"), "\(history)")
  }

  /// `GET /api/rooms` on a node lists a room open only on another node, with its members
  /// there and no last id: on one server and on a Redis Cluster (the nodes' room registry,
  /// one sorted set, where no command lists a cluster's sharded channels).
  @Test(arguments: ScaleOutRedis.Kind.allCases)
  func theRoomListShowsARoomOpenOnlyOnAnotherNode(_ kind: ScaleOutRedis.Kind) async throws {
    let (redis, nodes) = try await threeNodes(kind)
    defer { withExtendedLifetime(redis) {} }
    let alice = try RawChatPeer(.tcp, port: nodes[2].tcpPort, name: "alice")
    let bob = try RawChatPeer(.tcp, port: nodes[2].tcpPort, name: "bob")
    alice.send("/join only-here")
    bob.send("/join only-here")
    try await eventually("both joined on node 2") {
      let presence = try curl(nodes[2], "/api/rooms/only-here/presence")
      return presence.contains(#""name":"alice""#) && presence.contains(#""name":"bob""#)
    }
    var listed: [String: Any] = [:]
    try await eventually("node 0 lists the room with both members") {
      let body = try curl(nodes[0], "/api/rooms")
      let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
      let rooms = object?["rooms"] as? [[String: Any]] ?? []
      listed = rooms.first { $0["room"] as? String == "only-here" } ?? [:]
      return (listed["members"] as? NSNumber)?.intValue == 2
    }
    #expect(listed["lastId"] is NSNull && listed["epoch"] is NSNull, "\(listed)")
  }

  /// `POST /api/disconnect` with a room on one node closes the user's connections on the
  /// others (the order goes over the room's Redis channel), each with its documented answer.
  @Test func aDisconnectOnOneNodeClosesTheUsersConnectionsOnTheOthers() async throws {
    let (redis, nodes) = try await threeNodes()
    defer { withExtendedLifetime(redis) {} }
    let web = try webMember("mallory", on: nodes[1])
    let line = try RawChatPeer(.tcp, port: nodes[2].tcpPort, name: "mallory")
    let bystander = try RawChatPeer(.tcp, port: nodes[2].tcpPort, name: "bob")
    try web.waitConnected()
    try await eventually("the members joined") {
      let one = try curl(nodes[1], "/api/rooms/chaos/presence")
      let two = try curl(nodes[2], "/api/rooms/chaos/presence")
      return one.contains(#""name":"mallory""#) && two.contains(#""name":"mallory""#) && two.contains(#""name":"bob""#)
    }
    let answer = try curl(nodes[0], "/api/disconnect", json: #"{"user":"mallory","room":"chaos","reason":"account closed"}"#)
    #expect(answer.contains(#""closed":2"#), "\(answer)")
    try line.waitFor("the disconnect line") { $0.contains("* disconnected by the server: account closed") }
    try await eventually("the WebSocket client stopped for good") { web.client.refusal?.kind == .disconnected }
    try await eventually("only bob is left") {
      let one = try curl(nodes[1], "/api/rooms/chaos/presence")
      let two = try curl(nodes[2], "/api/rooms/chaos/presence")
      return !one.contains("mallory") && !two.contains("mallory") && two.contains(#""name":"bob""#)
    }
    #expect(web.connectCount == 1)
  }

  /// `POST /api/disconnect` without a room, on a node where the user has no connection,
  /// closes the user's connections on every other node, whatever room each is in (the order
  /// goes over the control channel every node subscribes to: classic pub/sub on one server,
  /// sharded on a cluster); other users stay.
  @Test(arguments: ScaleOutRedis.Kind.allCases)
  func aDisconnectWithoutARoomReachesEveryNode(_ kind: ScaleOutRedis.Kind) async throws {
    let (redis, nodes) = try await threeNodes(kind)
    defer { withExtendedLifetime(redis) {} }
    let web = try webMember("mallory", on: nodes[1])
    let webBystander = try webMember("alice", on: nodes[1])
    let line = try RawChatPeer(.tcp, port: nodes[2].tcpPort, name: "mallory")
    let bystander = try RawChatPeer(.tcp, port: nodes[2].tcpPort, name: "bob")
    line.send("/join ops")
    bystander.send("/join ops")
    try web.waitConnected()
    try webBystander.waitConnected()
    try await eventually("the members joined") {
      let one = try curl(nodes[1], "/api/rooms/chaos/presence")
      let two = try curl(nodes[2], "/api/rooms/ops/presence")
      return one.contains(#""name":"mallory""#) && one.contains(#""name":"alice""#)
        && two.contains(#""name":"mallory""#) && two.contains(#""name":"bob""#)
    }
    // The answering node had none of mallory's connections: it counts its own closes.
    let answer = try curl(nodes[0], "/api/disconnect", json: #"{"user":"mallory","reason":"account closed"}"#)
    #expect(answer.contains(#""closed":0"#), "\(answer)")
    try line.waitFor("the disconnect line") { $0.contains("* disconnected by the server: account closed") }
    try await eventually("the WebSocket client stopped for good") { web.client.refusal?.kind == .disconnected }
    try await eventually("only the others are left") {
      let one = try curl(nodes[1], "/api/rooms/chaos/presence")
      let two = try curl(nodes[2], "/api/rooms/ops/presence")
      return !one.contains("mallory") && !two.contains("mallory") && one.contains(#""name":"alice""#)
        && two.contains(#""name":"bob""#)
    }
    #expect(web.connectCount == 1)
    #expect(webBystander.client.refusal == nil)
    #expect(!bystander.lines.contains { $0.contains("disconnected by the server") })
  }
}
