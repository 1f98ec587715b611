import Foundation
import SwitchboardClient
import SwitchboardServer
import Synchronization
import SwitchboardTestSupport
import Testing

/// An app's lifecycle through the public API only (this file does not import the client
/// `@testable`): a saved resume point handed to a new client, suspend and resume, reconnect
/// now, and a network path change, against a real in-process server.
@Suite(.onTestThreads) struct ChatLifecycleTests {
  @Test func aNewClientResumesFromASavedPointWithNothingMissedOrRepeated() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let first = try ChatProbe(wsURL(server), name: "ada", room: "dev")
    let bob = try ChatProbe(wsURL(server), name: "bob", room: "dev")
    try await first.waitReady()
    try await bob.waitReady()
    for i in 0..<5 { try await bob.client.send("seen \(i)") }
    try await eventually("the first client has the five") { first.client.lastMessageID == 5 }
    let point = try #require(first.client.resumePoint)
    #expect(point.room == "dev")
    #expect(point.lastMessageID == 5)
    #expect(point.epoch != nil)
    // As an app keeps it between launches.
    let saved = try JSONEncoder().encode(point)
    await first.stop()

    for i in 0..<7 { try await bob.client.send("missed \(i)") }
    let restored = try JSONDecoder().decode(ChatResumePoint.self, from: saved)
    #expect(restored == point)
    let second = try ChatProbe(wsURL(server), name: "ada", room: "dev", resumingFrom: restored)
    try await second.waitReady()
    // A repeat would come before a message sent after everything: wait for that one.
    try await bob.client.send("marker")
    _ = try await second.waitForMessage("marker")
    let received = second.messages
    #expect(received.map(\.text) == (0..<7).map { "missed \($0)" } + ["marker"])
    #expect(received.compactMap(\.id) == Array(6...13))
    #expect(!second.events.contains { if case .gap = $0 { true } else { false } })
    // The very first connect was the resume: its history held exactly the missed seven.
    let firstHistory = second.events.first { if case .history = $0 { true } else { false } }
    guard case .history(let replayed, let recovered, let epoch)? = firstHistory else {
      Issue.record("no history event")
      return
    }
    #expect(recovered)
    #expect(epoch == point.epoch)
    #expect(replayed.map(\.text) == (0..<7).map { "missed \($0)" })
    #expect(second.client.resumePoint?.lastMessageID == 13)
    await second.stop()
    await bob.stop()
  }

  @Test func aPointFromAnotherEpochIsReportedAsAGap() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let bob = try ChatProbe(wsURL(server), name: "bob", room: "dev")
    try await bob.waitReady()
    try await bob.client.send("one")
    let stale = ChatResumePoint(room: "dev", lastMessageID: 40, epoch: "an epoch this server never had")
    let client = try ChatProbe(wsURL(server), name: "ada", room: "dev", resumingFrom: stale)
    try await client.waitFor("a gap from the stale point") {
      if case .gap(since: 40, let epoch) = $0 { epoch != nil && epoch != stale.epoch } else { false }
    }
    // The ids of the new epoch are not taken for ones already seen.
    _ = try await client.waitForMessage("one")
    try await bob.client.send("two")
    #expect(try await client.waitForMessage("two").id == 2)
    await client.stop()
    await bob.stop()
  }

  @Test(arguments: ["ws", "tcp"])
  func suspendLeavesKeepsTheOutboxAndResumeDeliversItInOrder(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let ada = try ChatProbe(scheme == "ws" ? wsURL(server) : tcpURL(server), name: "ada", room: "dev")
    let watcher = try ChatProbe(wsURL(server), name: "watcher", room: "dev")
    try await ada.waitReady()
    try await watcher.waitReady()
    try await ada.client.send("before")
    _ = try await watcher.waitForMessage("before")

    let mark = watcher.events.count
    ada.client.suspend()
    ada.client.suspend()  // idempotent
    try await watcher.waitFor("ada leaves", from: mark) {
      if case .presence(let p) = $0, p.kind == .leave, p.author == "ada" { true } else { false }
    }
    try await ada.waitFor("the suspended disconnect") {
      if case .disconnected(reason: "suspended", _) = $0 { true } else { false }
    }
    // Missed while away, to be replayed on resume (WebSocket: the line dialect has no history).
    try await watcher.client.send("while away")

    try await withThrowingTaskGroup(of: UInt64?.self) { group in
      // One at a time into the outbox, so the calls' order is known.
      for i in 0..<5 {
        group.addTask { try await ada.client.send("queued \(i)") }
        try await eventually("send \(i) queued") { ada.client.queuedCount == i + 1 }
      }
      #expect(ada.connectedCount == 1)
      #expect(!watcher.messages.contains { $0.text.hasPrefix("queued") })
      ada.client.resume()
      ada.client.resume()  // idempotent
      var ids: [UInt64?] = []
      for try await id in group { ids.append(id) }
      #expect(ids.count == 5)
      // WebSocket sends complete with their ids, one each; line sends carry none.
      #expect(Set(ids).count == (scheme == "ws" ? 5 : 1))
    }
    try await ada.waitConnected(count: 2)
    try await ada.client.send("marker")
    _ = try await watcher.waitForMessage("marker")
    let seen = watcher.messages.map(\.text).filter { $0.hasPrefix("queued") || $0 == "marker" }
    #expect(seen == (0..<5).map { "queued \($0)" } + ["marker"])
    let texts = ada.messages.map(\.text)
    #expect(texts.filter { $0 == "before" }.count == 1)
    if scheme == "ws" {
      _ = try await ada.waitForMessage("while away")
      #expect(ada.messages.filter { $0.text == "while away" }.count == 1)
    }
    await ada.stop()
    await watcher.stop()
  }

  @Test func reconnectNowCutsALongBackoffShort() async throws {
    let server = try RestartableServer()
    defer { server.shutdown() }
    let client = try ChatProbe(wsURL(server), name: "ada", configuration: .longBackoff)
    try await client.waitReady()
    try server.restart()
    try await client.waitFor("a two-minute backoff") {
      if case .reconnecting(attempt: 1, delay: .seconds(120)) = $0 { true } else { false }
    }
    client.client.reconnectNow()
    // Far sooner than the backoff: only reconnectNow could have connected it.
    try await client.waitReady(count: 2)
    let id = try await client.client.send("back")
    #expect(id != nil)
    await client.stop()
  }

  @Test func reconnectNowReplacesALiveConnection() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let client = try ChatProbe(wsURL(server), name: "ada", configuration: .longBackoff)
    try await client.waitReady()
    client.client.reconnectNow()
    try await client.waitReady(count: 2)
    #expect(!client.events.contains { if case .reconnecting = $0 { true } else { false } })
    await client.stop()
  }

  @Test func aPathChangeReconnectsAtOnceFromASilentlyDeadConnection() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let proxy = try StallingProxy(upstreamPort: server.httpAddress!.port)
    defer { proxy.close() }
    let monitor = StandInPathMonitor()
    var config = ChatClient.Configuration.longBackoff
    // The heartbeat alone would take 30 s to notice, and the backoff another 2 minutes.
    config.heartbeat = .init(interval: .seconds(30), timeout: .seconds(30))
    config.pathMonitor = monitor
    let ada = try ChatProbe("ws://127.0.0.1:\(proxy.port)/", name: "ada-on-wifi", room: "dev", configuration: config)
    let watcher = try ChatProbe(wsURL(server), name: "watcher", room: "dev")
    try await ada.waitReady()
    try await watcher.waitReady()
    monitor.report(ChatNetworkPath(isSatisfied: true, interfaces: ["en0", "pdp_ip0"]))

    // Wi-Fi goes: no reset, no FIN, bytes just stop (this connection only; new ones pass).
    proxy.stall(whereClientSent: "ada-on-wifi")
    try await watcher.client.send("sent into the dead connection")
    monitor.report(ChatNetworkPath(isSatisfied: true, interfaces: ["pdp_ip0"]))
    try await ada.waitReady(count: 2)
    #expect(proxy.acceptedCount == 2)
    _ = try await ada.waitForMessage("sent into the dead connection")
    try await watcher.client.send("after the switch")
    _ = try await ada.waitForMessage("after the switch")
    #expect(ada.messages.filter { $0.text == "sent into the dead connection" }.count == 1)
    #expect(!ada.events.contains { if case .error(.heartbeatTimeout) = $0 { true } else { false } })
    await ada.stop()
    await watcher.stop()
  }

  @Test func noNetworkWaitsWithoutSpendingAttemptsAndItsReturnReconnects() async throws {
    let server = try RestartableServer()
    defer { server.shutdown() }
    var config = ChatClient.Configuration.longBackoff
    // The app's own monitor reports through networkPathChanged (synchronous: no race with the restart).
    config.pathMonitor = nil
    let client = try ChatProbe(wsURL(server), name: "ada", configuration: config)
    try await client.waitReady()
    client.client.networkPathChanged(ChatNetworkPath(isSatisfied: true, interfaces: ["en0"]))
    client.client.networkPathChanged(ChatNetworkPath(isSatisfied: false))
    try server.restart()
    try await client.waitFor("the lost connection") { if case .disconnected = $0 { true } else { false } }
    client.client.networkPathChanged(ChatNetworkPath(isSatisfied: true, interfaces: ["en0"]))
    try await client.waitReady(count: 2)
    // It waited for the path, not for a backoff: no attempt was counted.
    #expect(!client.events.contains { if case .reconnecting = $0 { true } else { false } })
    await client.stop()
  }

  @Test func aSuspendIsNotALostConnection() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    var config = ChatClient.Configuration.forTesting
    config.reconnect = .never
    let client = try ChatProbe(wsURL(server), name: "ada", configuration: config)
    try await client.waitReady()
    client.client.suspend()
    try await client.waitFor("the suspended disconnect") {
      if case .disconnected(reason: "suspended", _) = $0 { true } else { false }
    }
    client.client.resume()
    try await client.waitReady(count: 2)
    #expect(try await client.client.send("still here") != nil)
    await client.stop()
  }

  @Test func withoutReconnectsALostConnectionEndsTheRunEvenWithNoNetwork() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    var config = ChatClient.Configuration.forTesting
    config.reconnect = .never
    config.pathMonitor = nil
    let client = try ChatClient(url: wsURL(server), name: "ada", configuration: config)
    // The policy says a lost connection ends the client: no path changes that.
    try await withTimeout(.seconds(30)) {
      try await client.run { session in
        for await event in session.events {
          guard case .history = event else { continue }
          client.networkPathChanged(ChatNetworkPath(isSatisfied: true, interfaces: ["en0"]))
          client.networkPathChanged(ChatNetworkPath(isSatisfied: false))
          server.shutdown()
        }
      }
    }
  }

  @Test func lifecycleCallsOutsideARunDoNothing() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let client = try ChatClient(url: wsURL(server), name: "ada", configuration: .forTesting)
    client.suspend()
    client.reconnectNow()
    client.resume()
    #expect(client.resumePoint == nil)
    // Not suspended by the calls before the run: it connects.
    try await client.run { session in
      for await event in session.events {
        if case .history = event { break }
      }
    }
    let line = try ChatClient(url: tcpURL(server), name: "ada", resumingFrom: ChatResumePoint(room: "lobby", lastMessageID: 3, epoch: "e"))
    #expect(line.resumePoint == nil)
  }
}

extension ChatClient.Configuration {
  /// Two minutes before every reconnect attempt: a connect within a test's deadline after a
  /// loss can only be the work of the call under test.
  static var longBackoff: ChatClient.Configuration {
    var config = ChatClient.Configuration.forTesting
    config.reconnect = ReconnectPolicy(initialDelay: .seconds(120), maximumDelay: .seconds(120), jitter: 0)
    return config
  }
}

/// A path monitor written against the public API, reporting what the test tells it.
final class StandInPathMonitor: ChatPathMonitor {
  private let stream: AsyncStream<ChatNetworkPath>
  private let continuation: AsyncStream<ChatNetworkPath>.Continuation

  init() {
    (stream, continuation) = AsyncStream.makeStream(of: ChatNetworkPath.self)
  }

  func paths() -> AsyncStream<ChatNetworkPath> { stream }

  func report(_ path: ChatNetworkPath) { continuation.yield(path) }
}
