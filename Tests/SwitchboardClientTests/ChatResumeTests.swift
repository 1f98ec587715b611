import Foundation
import SwitchboardClient
import SwitchboardServer
import Synchronization
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Resume without loss over WebSocket: restarts on the same SQLite data directory keep
/// history and epoch, and the client picks up after the last id it saw.
@Suite(.onTestThreads, .serialized) struct ChatResumeTests {
  @Test func missedMessagesArriveExactlyOnceInOrder() async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let server = try RestartableServer { c in
      c.broker = sqliteBroker(directory: dir)
    }
    defer { server.shutdown() }
    var slow = ChatClient.Configuration.forTesting
    // A reconnects late, so B's messages go out while A is away. (1 s was too short for a
    // loaded CI machine: the restart plus B's reconnect and its room's load took longer.)
    slow.reconnect = ReconnectPolicy(initialDelay: .seconds(3), jitter: 0)
    let a = try ChatProbe(wsURL(server), name: "ada", configuration: slow)
    let b = try ChatProbe(wsURL(server), name: "bob")
    try await a.waitReady()
    try await b.waitReady()
    for i in 0..<10 { try await b.client.send("early \(i)") }
    try await eventually("A has the early ones") { a.messages.filter { $0.text.hasPrefix("early") }.count == 10 }

    try server.restart()
    try await b.waitReady(count: 2)
    #expect(a.connectedCount == 1)
    for i in 0..<50 { try await b.client.send("late \(i)") }
    try await a.waitReady(count: 2)
    // A duplicate would arrive before a message sent after all of them: wait for that one.
    try await b.client.send("marker")
    _ = try await a.waitForMessage("marker")
    let received = a.messages
    let ids = received.compactMap(\.id)
    #expect(ids == Array(1...61))
    #expect(received.map(\.text) == (0..<10).map { "early \($0)" } + (0..<50).map { "late \($0)" } + ["marker"])
    #expect(!a.events.contains { if case .gap = $0 { true } else { false } })
    // The resumed history held only what was missed (how much of the 50 depends on when
    // A got back; the rest came live), never the 10 A already had.
    let histories = a.events.compactMap { event -> [ChatClient.Message]? in
      if case .history(let ms, let recovered, _) = event, recovered { return ms }
      return nil
    }
    #expect(histories.count == 2)
    #expect(histories.last?.allSatisfy { ($0.id ?? 0) > 10 } == true)
    await a.stop()
    await b.stop()
  }

  @Test func aResetRoomIsReportedAsAGap() async throws {
    // Ephemeral servers lose history on restart: a new epoch, ids from 1 again.
    let server = try RestartableServer()
    defer { server.shutdown() }
    let a = try ChatProbe(wsURL(server), name: "ada")
    try await a.waitReady()
    try await a.client.send("one")
    try await a.client.send("two")
    try server.restart()
    try await a.waitReady(count: 2)
    try await a.waitFor("gap") { if case .gap(since: 2, _) = $0 { true } else { false } }
    // Ids restart in the new epoch and are not dropped as duplicates.
    let id = try await a.client.send("three")
    #expect(id == 1)
    _ = try await a.waitForMessage("three")
    await a.stop()
  }

  @Test func chaosManyClientsRestartsEveryMessageOnceInOrder() async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let server = try chaosServer(dataDirectory: dir)
    defer { server.shutdown() }
    let url = wsURL(server)
    let clients = try (0..<20).map { i in try ChatProbe(url, name: "c\(i)") }
    for c in clients { try await c.waitReady() }

    // Cut every connection a few times at random moments.
    let total = try await sendFromFour(clients, restarting: server, times: 3, every: 150...600)
    try await expectEveryMessageOnceInOrder(clients, total: total, within: .seconds(20))
    for c in clients { #expect(!c.events.contains { if case .gap = $0 { true } else { false } }) }
    #expect(clients[0].connectedCount >= 4)
    for c in clients { await c.stop() }
  }
}

extension ChatResumeTests {
  /// The chaos test of the history issue with resets: every connection goes through a
  /// proxy that kills connections with TCP resets at random moments, while the server
  /// is also restarted (clean closes) on the same data directory.
  @Test(.enabled(ifAvailable: PythonPeer.hasPython, "needs python3"))
  func chaosWithResetsAndRestartsDeliversEveryMessageOnceInOrder() async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let server = try chaosServer(dataDirectory: dir)
    defer { server.shutdown() }
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("peers/reset_proxy.py").path
    let proxy = try ChildProcess(
      command: ["python3", "-u", script, "\(server.httpPort)", "--seconds", "90"])
    defer { proxy.stop() }
    let port = try await proxy.waitForLine { line -> Int? in line.hasPrefix("port ") ? Int(line.dropFirst(5)) : nil }
    let url = "ws://127.0.0.1:\(port)/"
    let clients = try (0..<20).map { i in try ChatProbe(url, name: "r\(i)") }
    for c in clients { try await c.waitReady() }
    let total = try await sendFromFour(clients, restarting: server, times: 2, every: 300...900)
    try await expectEveryMessageOnceInOrder(clients, total: total, within: .seconds(60))
    let cuts = proxy.stdout.split(separator: "\n").compactMap { $0.hasPrefix("reset ") ? Int($0.dropFirst(6)) : nil }
    #expect(cuts.reduce(0, +) > 0, "the proxy never cut a connection")
    for c in clients { await c.stop() }
  }
}

/// A server keeping history on disk in `dataDirectory`, with room for every chaos message.
func chaosServer(dataDirectory: String) throws -> RestartableServer {
  try RestartableServer { c in
    c.broker = sqliteBroker(directory: dataDirectory)
    c.historyLimit = 20_000
  }
}

/// Waits until every client saw id `total`, then checks each has ids 1…total exactly
/// once, in order, and no text twice (nothing stored twice by a retried send).
func expectEveryMessageOnceInOrder(_ clients: [ChatProbe], total: Int, within timeout: Duration) async throws {
  for c in clients {
    try await eventually(timeout: timeout, "\(c.client.name) has \(total)") {
      c.client.lastMessageID ?? 0 >= UInt64(total)
    }
  }
  for c in clients {
    let messages = c.messages
    let ids = messages.compactMap(\.id)
    // On a failure, what differs (the whole list of 10,000 ids says little).
    let texts = messages.map(\.text)
    let repeated = Dictionary(grouping: messages, by: \.text).values.filter { $0.count > 1 }.prefix(3)
    let foreign = messages.filter { !$0.text.hasPrefix("s") || $0.text.count > 7 }.prefix(5)
    let disorder = zip(ids, ids.dropFirst()).first { $0.1 != $0.0 + 1 }
    #expect(
      ids == Array(1...UInt64(total)),
      """
      \(c.client.name): \(ids.count) ids, \(Set(ids).count) distinct, last \(ids.suffix(3)); \
      first out of order: \(disorder.map { "\($0)" } ?? "none"); \
      texts not sent: \(foreign.map { "\($0.id ?? 0) \($0.text.debugDescription)" })
      """)
    #expect(
      Set(texts).count == total,
      """
      \(c.client.name): \(Set(texts).count) distinct texts; stored twice: \
      \(repeated.map { $0.map { "\($0.id ?? 0) \($0.text)" } })
      """)
  }
}

/// The first four clients send 2,500 messages each (up to 50 in flight per sender, like a
/// busy UI) while the server is restarted `times` times at random moments (each once the
/// first client is connected again); returns the total sent (10,000).
func sendFromFour(
  _ clients: [ChatProbe], restarting server: RestartableServer, times: Int, every range: ClosedRange<Int>
) async throws -> Int {
  let senders = 4
  let perSender = 2500
  try await withThrowingTaskGroup(of: Void.self) { group in
    for s in 0..<senders {
      let client = clients[s].client
      group.addTask {
        try await withThrowingTaskGroup(of: Void.self) { inner in
          for i in 0..<perSender {
            if i >= 50 { try await inner.next() }
            inner.addTask { try await client.send("s\(s)-\(i)") }
          }
          try await inner.waitForAll()
        }
      }
    }
    group.addTask {
      for restart in 0..<times {
        // Each restart cuts a connection: the first client is back from the last one.
        try await eventually("\(clients[0].client.name) reconnected after restart \(restart)") {
          clients[0].connectedCount > restart
        }
        try await Task.sleep(for: .milliseconds(Int.random(in: range)))
        try server.restart()
      }
    }
    try await group.waitForAll()
  }
  return senders * perSender
}
