import Foundation
import SwitchboardIO
import SwitchboardRedis
import SwitchboardTestSupport
import Testing

/// The admin console on three `serve --redis` nodes behind one `redis-server`
/// (docs/OPERATIONS.md, "The admin console"): one node's stream lists the three nodes and
/// a room's members on all of them. `curl` logs in and reads the stream.
@Suite(
  .serialized,
  .enabled(
    ifAvailable: Executables.switchboard != nil && RedisServer.isInstalled && Executables.tool("curl") != nil,
    "needs the switchboard binary, redis-server and curl"),
  .onTestThreads)
struct AdminClusterTests {
  static let password = "cluster console password"

  /// The last complete `snapshot` event's data in a stream's output so far, as JSON.
  private func lastSnapshot(_ output: String) -> [String: Any]? {
    let events = output.components(separatedBy: "\n\n").dropLast()
    guard let event = events.last(where: { $0.hasPrefix("event: snapshot\n") }),
      let line = event.split(separator: "\n").first(where: { $0.hasPrefix("data: ") })
    else { return nil }
    return try? JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any]
  }

  @Test func oneNodesStreamListsTheThreeNodesAndARoomsMembersAcrossThem() async throws {
    let redis = try ScaleOutRedis(.single)
    defer { withExtendedLifetime(redis) {} }
    var nodes: [ScaleOutNode] = []
    for _ in 0..<3 {
      nodes.append(
        try await ScaleOutNode(redisPorts: redis.ports, arguments: ["--admin-password", Self.password]))
    }
    for node in nodes { _ = try node.waitForReadiness(200) }
    let members = try nodes.indices.map {
      try RawChatPeer(.tcp, port: nodes[$0].tcpPort, name: "member\($0)")
    }
    let jar = FileManager.default.temporaryDirectory.appendingPathComponent(
      "admin-jar-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    defer { try? FileManager.default.removeItem(at: jar) }
    let base = "http://127.0.0.1:\(nodes[0].httpPort)"
    let login = try ChildProcess(
      Executables.tool("curl")!,
      ["-sS", "-c", jar.path, "--json", #"{"password":"\#(Self.password)"}"#, "\(base)/admin/login"])
    #expect(try await login.waitForExit() == 0, "\(login.stderr)")
    #expect(login.stdout.contains(#""csrf""#), "\(login.stdout)")
    let stream = try ChildProcess(
      Executables.tool("curl")!, ["-sS", "-N", "-b", jar.path, "\(base)/admin/events?room=chaos"])
    defer { stream.stop() }
    var last: [String: Any] = [:]
    try await eventually("the stream lists three nodes and three members of chaos") {
      guard let snapshot = lastSnapshot(stream.stdout) else { return false }
      last = snapshot
      let nodeCount = (snapshot["nodes"] as? [[String: Any]])?.count
      let room = snapshot["room"] as? [String: Any]
      let names = Set(((room?["members"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String })
      return nodeCount == 3 && names == ["member0", "member1", "member2"]
    }
    let listed = (last["nodes"] as? [[String: Any]]) ?? []
    #expect(listed.first?["self"] as? Bool == true)
    #expect(listed.dropFirst().allSatisfy { $0["self"] as? Bool == false })
    #expect(Set(listed.compactMap { $0["node"] as? String }).count == 3)
    let roomMembers = ((last["room"] as? [String: Any])?["members"] as? [[String: Any]]) ?? []
    #expect(Set(roomMembers.compactMap { $0["node"] as? String }).count == 3, "\(roomMembers)")
    // This node's member has its address; the others' are null.
    let own = roomMembers.first { $0["name"] as? String == "member0" }
    #expect((own?["address"] as? String)?.hasPrefix("127.0.0.1:") == true, "\(own ?? [:])")
    #expect(roomMembers.filter { $0["name"] as? String != "member0" }.allSatisfy { $0["address"] is NSNull })
    let rooms = (last["rooms"] as? [[String: Any]]) ?? []
    #expect(rooms.first { $0["room"] as? String == "chaos" }?["members"] as? Int == 3, "\(rooms)")
    let connections = (last["connections"] as? [String: Any]) ?? [:]
    #expect(connections["tcp"] as? Int == 3, "over every node: \(connections)")
    withExtendedLifetime(members) {}
  }
}
