import Foundation
import Observation
import SwitchboardClient
import SwitchboardServer
import Synchronization
import SwitchboardTestSupport
import Testing

/// Counts observable changes of a model's transcript, re-registering after each one, and
/// checks that every change of the model (transcript, connection, members, rooms, room) is
/// published on the main actor: `onChange` (a nonisolated `@Sendable` closure) runs where the
/// property is set, and the runtime checks stop the test there if that is not the main
/// actor's executor. (Not `Thread.isMainThread`: under `swift test` on Linux the main queue
/// is served by a worker thread once the runner calls `dispatchMain()`.)
@MainActor
final class ChatChangeCounter {
  /// Observable changes of ``ChatViewModel/messages``.
  private(set) var changes = 0
  /// Observable changes of the other properties.
  private(set) var otherChanges = 0
  let model: ChatViewModel

  init(_ model: ChatViewModel) {
    self.model = model
    trackMessages()
    trackTheRest()
  }

  private func trackMessages() {
    withObservationTracking {
      _ = model.messages
    } onChange: { [self] in
      MainActor.assertIsolated("a view model change published off the main actor")
      MainActor.assumeIsolated {
        changes += 1
        trackMessages()
      }
    }
  }

  private func trackTheRest() {
    withObservationTracking {
      _ = model.connectionState
      _ = model.isViable
      _ = model.members
      _ = model.rooms
      _ = model.room
    } onChange: { [self] in
      MainActor.assertIsolated("a view model change published off the main actor")
      MainActor.assumeIsolated {
        otherChanges += 1
        trackTheRest()
      }
    }
  }
}

@Suite(.onTestThreads) struct ChatViewModelTests {
  @Test @MainActor func aBurstIsCoalescedToAtMostSixtyUpdatesASecond() async throws {
    let model = ChatViewModel(url: "ws://127.0.0.1:1/", name: "me")
    let counter = ChatChangeCounter(model)
    let start = ContinuousClock.now
    for i in 1...10_000 {
      model.receive(.message(.init(id: UInt64(i), room: "lobby", author: i % 3 == 0 ? "me" : "other", text: "m\(i)", isMine: i % 3 == 0)))
      if i % 500 == 0 { await Task.yield() }
    }
    try await eventually("all 10,000 published") { model.messages.count == 10_000 }
    let elapsed = ReconnectPolicyTestsHelper.seconds(ContinuousClock.now - start)
    #expect(counter.changes >= 1)
    #expect(Double(counter.changes) <= 60 * elapsed + 2, "\(counter.changes) changes in \(elapsed) s")
    #expect(model.messages.map(\.text) == (1...10_000).map { "m\($0)" })
    #expect(model.messages[2].side == .me)
    #expect(model.messages[0].side == .other)
    // The same ids again (a restarted client's history) add nothing.
    model.receive(.history(messages: [.init(id: 9_999, room: "lobby", author: "other", text: "m9999")], recovered: true, epoch: nil))
    model.receive(.notice("after"))
    try await eventually("the notice") { model.messages.last?.text == "after" }
    // At most `maxItems` (10,000) rows: the oldest went.
    #expect(model.messages.count == 10_000)
    #expect(model.messages.filter { $0.text == "m9999" }.count == 1)
    #expect(model.messages.first?.text == "m2")
  }

  @Test @MainActor func followsARealServer() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let model = ChatViewModel(url: wsURL(server), name: "viewer", configuration: .forTesting)
    let counter = ChatChangeCounter(model)
    model.start()
    try await eventually("connected") { model.connectionState == .connected }
    let sender = try ChatProbe(wsURL(server), name: "talker")
    try await sender.waitReady()
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
      for t in 0..<4 {
        group.addTask { for i in 0..<500 { try await sender.client.send("t\(t)-\(i)") } }
      }
      try await group.waitForAll()
    }
    try await model.send("mine")
    try await eventually("2001 messages") { model.messages.filter { $0.kind == .message }.count == 2001 }
    let elapsed = ReconnectPolicyTestsHelper.seconds(ContinuousClock.now - start)
    #expect(Double(counter.changes) <= 60 * elapsed + 5, "\(counter.changes) changes in \(elapsed) s")
    #expect(model.messages.last { $0.kind == .message }?.isMine == true)
    #expect(model.messages.contains { $0.kind == .notice && $0.text == "talker joined" })
    model.stop()
    await sender.stop()
    try await eventually("disconnected") { if case .disconnected = model.connectionState { true } else { false } }
  }

  /// A ChatClient runs once; the model's next run is a new client, and the transcript goes
  /// on: what was missed while stopped is added, what the new client's history repeats is not.
  @Test @MainActor func restartAfterStopConnectsAgainWithoutDuplicates() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let model = ChatViewModel(url: wsURL(server), name: "viewer", configuration: .forTesting)
    let counter = ChatChangeCounter(model)
    let sender = try ChatProbe(wsURL(server), name: "talker")
    try await sender.waitReady()
    model.start()
    let first = try #require(model.client)
    try await eventually("connected") { model.connectionState == .connected }
    for i in 1...5 { try await sender.client.send("before \(i)") }
    try await eventually("5 messages") { model.messages.filter { $0.kind == .message }.count == 5 }
    model.stop()
    #expect(model.client == nil)
    try await eventually("disconnected") { if case .disconnected = model.connectionState { true } else { false } }
    for i in 1...3 { try await sender.client.send("while stopped \(i)") }
    model.start()
    let second = try #require(model.client)
    #expect(second !== first)
    try await eventually("connected again") { model.connectionState == .connected }
    try await model.send("after")
    let expected = (1...5).map { "before \($0)" } + (1...3).map { "while stopped \($0)" } + ["after"]
    try await eventually("9 messages") { model.messages.filter { $0.kind == .message }.count >= 9 }
    // A late duplicate would come with the history, before "after": give none a chance to hide.
    try await eventually("the transcript settles") { model.messages.last { $0.kind == .message }?.text == "after" }
    #expect(model.messages.filter { $0.kind == .message }.map(\.text) == expected)
    #expect(Set(model.messages.compactMap(\.messageID)).count == 9)
    #expect(counter.changes > 0)
    model.stop()
    await sender.stop()
  }

  /// What an app does across launches: save the model's resume point when it goes to the
  /// background, give it to the next launch's model, whose transcript then holds exactly
  /// what was missed.
  @Test @MainActor func aSavedResumePointMakesTheNextModelShowExactlyWhatWasMissed() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let sender = try ChatProbe(wsURL(server), name: "talker")
    try await sender.waitReady()
    let first = ChatViewModel(url: wsURL(server), name: "viewer", configuration: .forTesting)
    first.start()
    try await eventually("connected") { first.connectionState == .connected }
    for i in 1...4 { try await sender.client.send("seen \(i)") }
    try await eventually("4 messages") { first.messages.filter { $0.kind == .message }.count == 4 }
    let saved = try #require(first.resumePoint)
    let data = try JSONEncoder().encode(saved)
    first.stop()
    try await eventually("disconnected") { if case .disconnected = first.connectionState { true } else { false } }
    for i in 1...3 { try await sender.client.send("missed \(i)") }
    let next = ChatViewModel(
      url: wsURL(server), name: "viewer", configuration: .forTesting,
      resumingFrom: try JSONDecoder().decode(ChatResumePoint.self, from: data))
    let counter = ChatChangeCounter(next)
    next.start()
    try await eventually("the missed messages") { next.messages.filter { $0.kind == .message }.count >= 3 }
    try await next.send("back")
    try await eventually("the transcript settles") { next.messages.last { $0.kind == .message }?.text == "back" }
    #expect(next.messages.filter { $0.kind == .message }.map(\.text) == ["missed 1", "missed 2", "missed 3", "back"])
    #expect(!next.messages.contains { $0.kind == .notice && $0.text.contains("missing") })
    #expect(counter.changes > 0)
    next.stop()
    await sender.stop()
  }

  /// The app's background/foreground calls: suspend closes the connection and keeps what is
  /// sent meanwhile; resume connects again and delivers it.
  @Test @MainActor func suspendAndResumeThroughTheModel() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let model = ChatViewModel(url: wsURL(server), name: "viewer", configuration: .forTesting)
    model.start()
    try await eventually("connected") { model.connectionState == .connected }
    model.suspend()
    try await eventually("suspended: \(model.connectionState)") {
      model.connectionState == .disconnected(reason: "suspended")
    }
    let sent = Task { @MainActor in try await model.send("written while suspended") }
    try await eventually("queued") { model.client?.queuedCount == 1 }
    model.resume()
    try await eventually("connected again") { model.connectionState == .connected }
    let id = try await sent.value
    #expect(id != nil)
    try await eventually("delivered") { model.messages.contains { $0.text == "written while suspended" && $0.isMine } }
    model.reconnectNow()
    try await eventually("connected after reconnectNow") { model.client?.queuedCount == 0 && model.connectionState == .connected }
    model.stop()
  }

  @Test(arguments: ["ws", "tcp"])
  @MainActor func membersAfterConnectAndAsOthersJoinAndLeave(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let url = scheme == "ws" ? wsURL(server) : tcpURL(server)
    let resident = try ChatProbe(wsURL(server), name: "resident")
    try await resident.waitReady()
    let model = ChatViewModel(url: url, name: "viewer", configuration: .forTesting)
    let counter = ChatChangeCounter(model)
    model.start()
    try await eventually("members after connect: \(model.members)") { model.members == ["resident", "viewer"] }
    let guest = try ChatProbe(wsURL(server), name: "guest")
    try await guest.waitReady()
    try await eventually("guest joined: \(model.members)") { model.members == ["guest", "resident", "viewer"] }
    await guest.stop()
    try await eventually("guest left: \(model.members)") { model.members == ["resident", "viewer"] }
    #expect(model.room == "lobby")
    #expect(counter.otherChanges >= 3)
    model.stop()
    await resident.stop()
  }

  @Test @MainActor func switchRoomRestartsInTheOtherRoom() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let devMember = try ChatProbe(wsURL(server), name: "dev-person", room: "dev")
    try await devMember.waitReady()
    let model = ChatViewModel(url: wsURL(server), name: "viewer", configuration: .forTesting)
    model.start()
    try await eventually("in the lobby: \(model.members)") { model.members == ["viewer"] }
    try await model.send("in lobby")
    try await eventually("lobby message") { model.messages.contains { $0.text == "in lobby" } }
    model.switchRoom("dev")
    #expect(model.room == "dev")
    try await eventually("in dev: \(model.members)") { model.members == ["dev-person", "viewer"] }
    try await devMember.client.send("hello dev")
    try await eventually("dev message") { model.messages.contains { $0.text == "hello dev" } }
    #expect(!model.messages.contains { $0.text == "in lobby" })
    try await model.send("from viewer")
    #expect(try await devMember.waitForMessage("from viewer").room == "dev")
    model.stop()
    await devMember.stop()
  }

  @Test(arguments: ["ws", "tcp"])
  @MainActor func refreshRoomsListsTheRooms(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let devMember = try ChatProbe(wsURL(server), name: "dev-person", room: "dev")
    try await devMember.waitReady()
    let model = ChatViewModel(url: scheme == "ws" ? wsURL(server) : tcpURL(server), name: "viewer", configuration: .forTesting)
    model.refreshRooms()  // nothing runs yet: nothing happens
    model.start()
    try await eventually("connected") { model.members == ["viewer"] }
    model.refreshRooms()
    try await eventually("rooms: \(model.rooms)") {
      model.rooms == [.init(name: "dev", members: 1), .init(name: "lobby", members: 1)]
    }
    model.stop()
    await devMember.stop()
  }

  /// The maker chooses the room until switchRoom names one; every run asks it for a new client.
  @Test @MainActor func theMakerIsAskedForEveryRunWithTheRoomSwitchedTo() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let url = wsURL(server, path: "/rooms/start")
    let asked = Locked<[String?]>([])
    let model = ChatViewModel { room throws(ChatClientError) in
      asked.withLock { $0.append(room) }
      return try ChatClient(url: url, name: "viewer", room: room, configuration: .forTesting)
    }
    model.start()
    #expect(model.room == "start")
    try await eventually("in start: \(model.members)") { model.members == ["viewer"] }
    model.switchRoom("dev")
    try await eventually("in dev") { model.connectionState == .connected && model.room == "dev" }
    model.stop()
    model.start()
    try await eventually("connected again") { model.connectionState == .connected }
    #expect(asked.value == [nil, "dev", "dev"])
    #expect(model.client?.room == "dev")
    model.stop()
  }

  @Test @MainActor func aClientThatCannotBeMadeIsReportedNotThrown() async throws {
    let model = ChatViewModel { room throws(ChatClientError) in
      try ChatClient(url: "gopher://nowhere/", name: "x", room: room)
    }
    model.start()
    try await eventually("disconnected") { if case .disconnected = model.connectionState { true } else { false } }
    #expect(model.client == nil)
    #expect(model.messages.last?.text.hasPrefix("error:") == true)
  }

  @Test func reconnectPolicyBacksOffWithJitterAndGivesUp() {
    let p = ReconnectPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(1), multiplier: 2, jitter: 0.5, maxAttempts: 5)
    #expect(p.delay(forAttempt: 1, random: 0.5) == .milliseconds(100))
    #expect(p.delay(forAttempt: 3, random: 0.5) == .milliseconds(400))
    #expect(p.delay(forAttempt: 5, random: 0.5) == .seconds(1))
    #expect(p.delay(forAttempt: 2, random: 0) == .milliseconds(100))
    #expect(p.delay(forAttempt: 2, random: 1) == .milliseconds(300))
    #expect(p.delay(forAttempt: 6) == nil)
    #expect(ReconnectPolicy.never.delay(forAttempt: 1) == nil)
  }
}

enum ReconnectPolicyTestsHelper {
  static func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
  }
}
