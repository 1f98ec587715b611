import Observation
import SwitchboardClient
import SwitchboardServer
import Synchronization
import SwitchboardTestSupport
import Testing

/// Counts observable changes of a model's transcript, re-registering after each one.
final class ChatChangeCounter: Sendable {
  let count = Atomic<Int>(0)
  let model: ChatViewModel

  init(_ model: ChatViewModel) {
    self.model = model
    track()
  }

  private func track() {
    withObservationTracking {
      _ = model.messages
      _ = model.connectionState
    } onChange: { [self] in
      count.add(1, ordering: .relaxed)
      track()
    }
  }

  var changes: Int { count.load(ordering: .relaxed) }
}

@Suite(.onTestThreads) struct ChatViewModelTests {
  @Test func aBurstIsCoalescedToAtMostSixtyUpdatesASecond() async throws {
    let model = ChatViewModel(client: try ChatClient(url: "ws://127.0.0.1:1/", name: "me"))
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
  }

  @Test func followsARealServer() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let model = ChatViewModel(client: try ChatClient(url: wsURL(server), name: "viewer", configuration: .forTesting))
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
