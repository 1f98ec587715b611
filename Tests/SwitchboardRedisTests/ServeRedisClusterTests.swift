import Foundation
import SwitchboardClient
import SwitchboardTestSupport
import Testing

/// Whether the suite can run: the binary and the cluster's tools.
private let canServeCluster = Executables.switchboard != nil && RedisCluster.isInstalled

/// Three `switchboard serve --redis` processes on a three-master Redis Cluster, with real
/// WebSocket clients: rooms on every master, one order and one set of ids everywhere, and
/// a client joining later on another node gets the same history and epoch.
@Suite(.onTestThreads, .enabled(ifAvailable: canServeCluster, "the switchboard binary or redis-server is missing"))
struct ServeRedisClusterTests {
  /// A `serve` node: its process and HTTP port.
  private struct Node {
    let process: ServeProcess
    var tcpPort: Int { process.tcp }
    var httpPort: Int { process.http }
  }

  /// Starts `serve` on `redis` URLs (the first is the node's own, the others seeds).
  private func serve(_ redis: [String]) async throws -> Node {
    Node(process: try await ServeProcess.start(["--ephemeral"] + redis.flatMap { ["--redis", $0] }, listeners: [.tcp, .http]))
  }

  @Test func threeNodesOnAClusterShareRoomsOnEveryMaster() async throws {
    let cluster = try RedisCluster()
    let rooms = try (0..<3).map { try cluster.room(on: $0, prefix: "hall") }
    var nodes: [Node] = []
    defer { nodes.forEach { $0.process.stop() } }
    for index in 0..<3 {
      // The third node is given two seeds: its own master and the first one.
      let urls =
        ["redis://127.0.0.1:\(cluster.ports[index])"]
        + (index == 2 ? ["redis://127.0.0.1:\(cluster.ports[0])"] : [])
      nodes.append(try await serve(urls))
    }
    #expect(nodes.allSatisfy { $0.process.stderr.contains("rooms shared through Redis Cluster") })
    let perClient = 5
    let expected = perClient * nodes.count
    let joined = Locked(0)
    let clients = rooms.count * nodes.count
    // Every room has a WebSocket client on every node; all send at once.
    let ports = nodes.map(\.httpPort)
    let nodeCount = nodes.count
    let seen = try await withTimeout(.seconds(60)) {
      try await withThrowingTaskGroup(of: (String, [UInt64: String]).self) { group in
        for room in rooms {
          for (index, port) in ports.enumerated() {
            let name = "n\(index)-\(room)"
            let client = ChatClient(
              endpoint: try ChatEndpoint("ws://127.0.0.1:\(port)/"), name: name, room: room)
            group.addTask {
              try await client.run { session in
                var messages: [UInt64: String] = [:]
                var events = session.events.makeAsyncIterator()
                while let event = await events.next() {
                  if case .history = event { break }
                }
                joined.withLock { $0 += 1 }
                try await eventually(timeout: .seconds(20), "every client joined") { joined.value == clients }
                for i in 1...perClient { try await session.send("\(name) \(i)") }
                let deadline = ContinuousClock.now + .seconds(20)
                while messages.count < expected, ContinuousClock.now < deadline,
                  let event = await events.next()
                {
                  if case .message(let message) = event, let id = message.id { messages[id] = message.text }
                }
                return (room, messages)
              }
            }
          }
        }
        var all: [(String, [UInt64: String])] = []
        for try await result in group { all.append(result) }
        return all
      }
    }
    for room in rooms {
      let views = seen.filter { $0.0 == room }.map(\.1)
      #expect(views.count == nodeCount)
      #expect(views.allSatisfy { $0 == views[0] }, "one order and one set of ids in \(room)")
      #expect(Set(views[0].keys) == Set(1...UInt64(perClient * nodes.count)))
    }

    // A WebSocket client joining later on another node gets the same history, same epoch.
    let epochs = Locked<String?>(nil)
    let first = ChatClient(
      endpoint: try ChatEndpoint("ws://127.0.0.1:\(nodes[0].httpPort)/"), name: "probe", room: rooms[1])
    try await withTimeout(.seconds(20)) {
      try await first.run { session in
        for await event in session.events {
          if case .history(_, _, let epoch) = event {
            epochs.withLock { $0 = epoch }
            break
          }
        }
      }
    }
    let epoch = try #require(epochs.value)
    let resumed = ChatClient(
      endpoint: try ChatEndpoint("ws://127.0.0.1:\(nodes[2].httpPort)/rooms/\(rooms[1])"), name: "late")
    let history = try await withTimeout(.seconds(20)) {
      try await resumed.run { session -> ([UInt64: String], String?) in
        for await event in session.events {
          if case .history(let messages, _, let epoch) = event {
            return (
              Dictionary(uniqueKeysWithValues: messages.compactMap { m in m.id.map { ($0, m.text) } }), epoch
            )
          }
        }
        return ([:], nil)
      }
    }
    #expect(history.1 == epoch)
    #expect(history.0 == seen.first { $0.0 == rooms[1] }?.1)
  }
}
