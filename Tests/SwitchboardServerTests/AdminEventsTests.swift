import Foundation
import SwitchboardAuth
import SwitchboardIO
import SwitchboardTestSupport
import Testing

/// The admin console's live stream (`GET /admin/events`) on the real binary: a history,
/// then a snapshot a second that follows members of every transport as they come and go,
/// a room's members and its messages as they are sent, and its end at logout.
@Suite(.onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "needs the switchboard binary"))
struct AdminEventsTests {
  private func start() throws -> (ServeProcess, AdminTestClient) {
    let server = try ServeProcess.start([
      "--ephemeral", "--room", "ops", "--admin-password", AdminLoginTests.password,
    ])
    let admin = AdminTestClient(port: server.http)
    try admin.login(AdminLoginTests.password)
    return (server, admin)
  }

  private func members(_ snapshot: [String: JSONValue], _ room: String) -> Int? {
    snapshot.roomRow(room)?["members"]?.numberValue.map { Int($0) }
  }

  /// A WebSocket, a line and a UDP client join: the room is listed and its member count
  /// follows them as they come and go, a snapshot or two later.
  @Test func theRoomListFollowsMembersOfEveryTransport() throws {
    let (server, admin) = try start()
    defer { server.stop() }
    let stream = try admin.events()
    let history = try stream.next()
    #expect(history.name == "history")
    #expect(history.json["interval"]?.numberValue == 1)
    #expect(history.json["points"]?.arrayValue != nil)
    #expect(stream.head?.status == 200)
    #expect(stream.head?.headers["Content-Type"] == "text/event-stream")
    #expect(stream.head?.headers["Content-Length"] == nil)
    let first = try stream.next("snapshot")
    #expect(first.json["nodes"]?.arrayValue?.count == 1)
    #expect(first.json["connections"]?.objectValue?.keys.sorted() == ["tcp", "tls", "udp", "ws", "wss"])
    #expect(first.json["point"]?.objectValue?["time"]?.numberValue != nil)

    let http = try SocketAddress(host: "127.0.0.1", port: server.http)
    let ws = try WebSocketTestClient(http, path: "/?name=webby")
    let line = try LineClient(SocketAddress(host: "127.0.0.1", port: server.tcp))
    try line.join(as: "liner")
    let udp = try DatagramPeer(SocketAddress(host: "127.0.0.1", port: server.udp))
    try udp.prove()
    try udp.send("iam:udper")
    let all = try stream.snapshot(within: .seconds(5), "three members in ops") { members($0, "ops") == 3 }
    let connections = all["connections"]?.objectValue ?? [:]
    #expect(
      connections["ws"]?.numberValue == 1 && connections["tcp"]?.numberValue == 1
        && connections["udp"]?.numberValue == 1, "\(connections)")
    // Each leaves in turn; the count follows within a couple of snapshots.
    ws.socket.reset()
    _ = try stream.snapshot(within: .seconds(3), "two members") { members($0, "ops") == 2 }
    line.reset()
    _ = try stream.snapshot(within: .seconds(3), "one member") { members($0, "ops") == 1 }
    // Seconds later a new stream's history holds the sampler's points, oldest first.
    let points =
      try admin.events().next("history").json["points"]?.arrayValue?.compactMap(\.objectValue) ?? []
    #expect(!points.isEmpty)
    let times = points.compactMap { $0["time"]?.numberValue }
    #expect(times == times.sorted() && times.count == points.count)
    #expect(points.last?["heapBytes"]?.numberValue.map { $0 > 0 } == true, "\(points.last ?? [:])")
  }

  /// `?room=`: the members with transport, address, since and node; messages as they are
  /// sent (the first snapshot the last ones kept, later ones only what is new).
  @Test func aWatchedRoomShowsItsMembersAndMessages() throws {
    let (server, admin) = try start()
    defer { server.stop() }
    let address = try SocketAddress(host: "127.0.0.1", port: server.tcp)
    let line = try LineClient(address)
    try line.join(as: "liner")
    let reader = try LineClient(address)
    try reader.join(as: "reader")
    try line.sendLine("before the console")
    try reader.expectLine("liner: before the console")
    let stream = try admin.events(room: "ops")
    let first = try stream.next("snapshot").json
    #expect(first.watchedMessages.map { $0["text"]?.stringValue } == ["before the console"])
    #expect(first.watchedMembers.map { $0["name"]?.stringValue } == ["liner", "reader"])
    let member = try #require(first.watchedMembers.first)
    #expect(member["name"]?.stringValue == "liner")
    #expect(member["transport"]?.stringValue == "tcp")
    #expect(member["since"]?.stringValue?.hasSuffix("Z") == true)
    #expect(member["node"]?.stringValue?.isEmpty == false)
    let shown = try #require(member["address"]?.stringValue)
    #expect(
      shown.hasPrefix("127.0.0.1:") && shown != "127.0.0.1:\(server.tcp)", "the client's side: \(shown)")
    try line.sendLine("while watched")
    let next = try stream.snapshot(within: .seconds(5), "the new message") { !$0.watchedMessages.isEmpty }
    #expect(next.watchedMessages.map { $0["text"]?.stringValue } == ["while watched"])
    #expect(next.watchedMessages.first?["author"]?.stringValue == "liner")
    #expect(next.watchedMessages.first?["id"]?.numberValue == 2)
  }

  @Test func aBadRoomOrNoSessionIsRefusedBeforeStreaming() throws {
    let (server, admin) = try start()
    defer { server.stop() }
    let bad = try admin.request("GET", "/admin/events?room=no%20spaces")
    #expect(bad.status == 400)
    #expect(bad.errorCode == "bad_room")
    let stranger = AdminTestClient(port: server.http)
    #expect(try stranger.request("GET", "/admin/events").errorCode == "login_required")
  }

  /// Logging out ends the session's streams with an `end` event and closes them.
  @Test func logoutEndsTheStream() throws {
    let (server, admin) = try start()
    defer { server.stop() }
    let stream = try admin.events()
    _ = try stream.next("snapshot")
    #expect(try admin.request("POST", "/admin/logout").status == 204)
    let end = try stream.next("end")
    #expect(end.json["reason"]?.stringValue?.isEmpty == false)
    try stream.client.expectClosed()
  }
}
