import Foundation
import SwitchboardIO
import SwitchboardTestSupport
import Testing

/// `serve --webhook` on one node against a real receiver (Tests/peers/backend.py, aiohttp),
/// which verifies every batch's signature and timestamp: the events in order, deliveries
/// coming again after the receiver failed for a while, a receiver that never answers
/// costing the chat nothing (its queue bounded, the overflow counted), bad flags refused.
@Suite(
  .enabled(
    ifAvailable: Executables.switchboard != nil && BackendPeer.isAvailable,
    "needs the switchboard binary and python3 with aiohttp"),
  .onTestThreads)
struct WebhookTests {
  static let secret = "webhook-test-secret-of-thirty-two-bytes-or-more"

  func serve(_ backend: BackendPeer, _ extra: [String] = []) async throws -> ServeProcess {
    try await ServeProcess.start(
      ["--ephemeral", "--webhook", backend.url("/hooks"), "--webhook-secret", Self.secret] + extra)
  }

  /// `/metrics`, through curl.
  func metrics(_ server: ServeProcess) throws -> String {
    try runTool(["curl", "-s", "http://127.0.0.1:\(server.http)/metrics"])
  }

  /// The value of the `target="0"` row of `name` in `/metrics`.
  func metric(_ server: ServeProcess, _ name: String) throws -> Int {
    let line = try metrics(server).split(separator: "\n").first { $0.hasPrefix("\(name){target=\"0\"") }
    return line.flatMap { $0.split(separator: " ").last }.flatMap { Int($0) } ?? -1
  }

  @Test func roomAndMemberEventsArriveInOrderSigned() async throws {
    let backend = try await BackendPeer(secret: Self.secret)
    let server = try await serve(
      backend, ["--webhook-events", "room.occupied,room.vacated,member.joined,member.left,message.published"])
    defer { server.stop() }
    var ada: LineClient? = try LineClient(SocketAddress(host: "127.0.0.1", port: server.tcp))
    try ada?.join(as: "ada")
    try ada?.sendLine("hello hooks")
    try await eventually("ada's message") { backend.events.contains { $0.hasPrefix("message lobby ada") } }
    var bob: LineClient? = try LineClient(SocketAddress(host: "127.0.0.1", port: server.tcp))
    try bob?.join(as: "bob")
    try ada?.expectLine("* bob has joined")
    bob = nil
    try ada?.expectLine { $0.hasPrefix("* bob has left") }
    // Two members' changes reach the broker from their own loops: one at a time keeps
    // the test's order the only one.
    try await eventually("bob's leave") {
      backend.events.contains { $0.hasPrefix("event member.left lobby bob") }
    }
    ada = nil
    let expected = [
      "event room.occupied lobby -", "event member.joined lobby ada", "message lobby ada 1 hello hooks",
      "event member.joined lobby bob", "event member.left lobby bob", "event member.left lobby ada",
      "event room.vacated lobby -",
    ]
    try await eventually("the seven events") { backend.events.count >= expected.count }
    // Lines are `event TYPE ROOM MEMBER NODE`: compare without the node.
    let seen = backend.events.map { line in
      line.hasPrefix("event ") ? line.split(separator: " ").prefix(4).joined(separator: " ") : line
    }
    #expect(seen == expected)
    #expect(!backend.lines.contains { $0.hasPrefix("badsig") })
    try await eventually("the sent counter") {
      try metric(server, "switchboard_webhook_events_sent_total") == 7
    }
  }

  /// A server API publish has no member behind it: the node the request reached reports
  /// it, with the id the API answered, once.
  @Test func aServerAPIPublishIsReportedWithItsID() async throws {
    let backend = try await BackendPeer(secret: Self.secret)
    let key = "webhook-test-api-key"
    let server = try await serve(backend, ["--webhook-events", "message.published", "--api-key", key])
    defer { server.stop() }
    let answer = try runTool([
      "curl", "-sS", "-H", "Authorization: Bearer \(key)", "-H", "Content-Type: application/json",
      "-d", #"{"room":"news","text":"your order shipped","author":"shop"}"#,
      "http://127.0.0.1:\(server.http)/api/publish",
    ])
    #expect(answer.contains(#""id":1"#), "the API's answer: \(answer)")
    try await eventually("the published event") { !backend.events.isEmpty }
    #expect(backend.events == ["message news shop 1 your order shipped"])
  }

  @Test func deliveriesComeAgainAfterTheReceiverFailed() async throws {
    let backend = try await BackendPeer(secret: Self.secret)
    try await backend.mode("fail")
    let server = try await serve(backend)
    defer { server.stop() }
    let ada = try LineClient(SocketAddress(host: "127.0.0.1", port: server.tcp))
    try ada.join(as: "ada")
    try await eventually("two failed deliveries") {
      backend.lines.filter { $0.hasPrefix("answered 500") }.count >= 2
    }
    #expect(backend.events.isEmpty)
    #expect(try metric(server, "switchboard_webhook_requests_failed_total") >= 2)
    #expect(try metrics(server).contains("switchboard_webhook_last_error{target=\"0\",kind=\"status\"} 1"))
    try await backend.mode("ok")
    try await eventually("the retried batch") { backend.events.count >= 2 }
    #expect(
      backend.events.map { $0.split(separator: " ").prefix(4).joined(separator: " ") } == [
        "event room.occupied lobby -", "event member.joined lobby ada",
      ])
    try await eventually("the last error cleared") {
      try metrics(server).contains("switchboard_webhook_last_error{target=\"0\",kind=\"status\"} 0")
    }
  }

  @Test func aReceiverThatNeverAnswersCostsTheChatNothing() async throws {
    let backend = try await BackendPeer(secret: Self.secret)
    try await backend.mode("hang")
    let server = try await serve(
      backend,
      [
        "--webhook-events", "message.published,member.joined", "--webhook-queue", "5", "--webhook-timeout",
        "30",
      ])
    defer { server.stop() }
    let (reader, writer) = try (
      LineClient(SocketAddress(host: "127.0.0.1", port: server.tcp)),
      LineClient(SocketAddress(host: "127.0.0.1", port: server.tcp))
    )
    try reader.join(as: "reader")
    try writer.join(as: "w")
    try await eventually("the first batch hanging") { backend.lines.contains { $0.hasPrefix("hanging") } }
    // The chat goes on at its pace while the receiver holds the first batch.
    for index in 0..<50 {
      try writer.sendLine("message \(index)")
      try reader.expectLine("w: message \(index)")
    }
    try await eventually("the overflow counted") {
      try metric(server, "switchboard_webhook_events_dropped_total") >= 40
    }
    #expect(try metric(server, "switchboard_webhook_queue_depth") <= 5)
    #expect(try metric(server, "switchboard_webhook_events_sent_total") == 0)
  }

  static let badFlags: [(args: [String], problem: String)] = [
    (["--webhook", "ftp://127.0.0.1/", "--webhook-secret", secret], "is not an http:// or https:// URL"),
    (["--webhook", "http://127.0.0.1:1/", "--webhook-secret", "short"], "at least 32 needed"),
    (["--webhook", "http://127.0.0.1:1/"], "--webhook needs --webhook-secret"),
    (
      ["--webhook", "http://127.0.0.1:1/", "--webhook-secret", secret, "--webhook-events", "room.exploded"],
      "unknown webhook event 'room.exploded'"
    ),
    (["--webhook-secret", secret], "--webhook-secret needs --webhook URL"),
    (
      ["--webhook", "http://127.0.0.1:1/", "--webhook-secret", secret, "--webhook-timeout", "0"],
      "--webhook-timeout"
    ),
  ]

  @Test(arguments: badFlags)
  func badFlagsAreUsageErrors(args: [String], problem: String) async throws {
    let run = try ChildProcess(Executables.switchboard ?? "", ["serve", "--no-advertise"] + args)
    #expect(try await run.waitForExit() == 64)
    #expect(run.stderr.hasPrefix("switchboard serve: ") && run.stderr.contains(problem), "\(run.stderr)")
  }
}
