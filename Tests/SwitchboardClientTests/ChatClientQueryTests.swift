import Foundation
import SwitchboardServer
import SwitchboardTestSupport
import Testing

@testable import SwitchboardClient

/// ``ChatClient/requestMembers()`` and ``ChatClient/requestRooms()`` on every dialect, the
/// replies parsed, and the order of replies kept apart from the heartbeat's `/rooms` and the
/// `/who` that confirms a line send.
@Suite(.onTestThreads)
struct ChatClientQueryTests {
  @Test(arguments: ["ws", "tcp", "udp"])
  func membersAndRoomsAreAnsweredOnEveryDialect(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let other = try ChatProbe(wsURL(server), name: "bea", room: "dev")
    try await other.waitReady()
    let url = scheme == "ws" ? wsURL(server) : scheme == "tcp" ? tcpURL(server) : udpURL(server)
    let probe = try ChatProbe(url, name: "ada")
    try await probe.waitReady()
    try await probe.client.requestMembers()
    let members = try await probe.waitFor("members") { if case .members = $0 { true } else { false } }
    guard case .members(let room, let names) = members else { return }
    #expect(room == "lobby")
    #expect(names == ["ada"])
    // Over UDP the heartbeat's `/rooms` probe and this request share replies (a reply answers
    // the oldest request, else a probe: datagram replies can be lost), so a probe written just
    // before ada's datagrams made her a member can answer the request with a list she is not
    // in yet (seen on a loaded machine): UDP asks again until a reply is current; tcp and ws
    // take the first reply, which must be right.
    let expected: [ChatClient.RoomSummary] = [.init(name: "dev", members: 1), .init(name: "lobby", members: 1)]
    var list: [ChatClient.RoomSummary] = []
    for _ in 0..<(scheme == "udp" ? 5 : 1) where list != expected {
      let from = probe.events.count
      try await probe.client.requestRooms()
      let rooms = try await probe.waitFor("rooms", from: from) { if case .rooms = $0 { true } else { false } }
      if case .rooms(let answer) = rooms { list = answer }
    }
    #expect(list == expected)
    #expect(!probe.events.contains { if case .notice = $0 { true } else { false } })
    await probe.stop()
    await other.stop()
    await #expect(throws: ChatClientError.closed) { try await probe.client.requestMembers() }
  }

  /// Sends confirmed by `/who` replies, members requests and heartbeat probes at once on one
  /// line connection: every send completes, every request gets its own answer, no reply
  /// shows up as a notice.
  @Test func repliesAreMatchedInOrderWithConfirmationsAndProbes() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    var configuration = ChatClient.Configuration.forTesting
    configuration.lineSendCompletion = .handled
    configuration.heartbeat = ChatClient.Heartbeat(interval: .milliseconds(20), timeout: .seconds(20))
    let probe = try ChatProbe(tcpURL(server), name: "ada", configuration: configuration)
    try await probe.waitConnected()
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { for i in 1...30 { try await probe.client.send("m\(i)") } }
      group.addTask {
        for _ in 1...30 {
          try await probe.client.requestMembers()
          try await probe.client.requestRooms()
          try await Task.sleep(for: .milliseconds(2))
        }
      }
      try await group.waitForAll()
    }
    try await probe.client.requestMembers()
    try await eventually("all requests answered") { probe.client.state.withLock { $0.expectedReplies.isEmpty && $0.queries.isEmpty } }
    let mine = probe.events.compactMap { if case .message(let m) = $0, m.isMine { m.text } else { nil } }
    #expect(mine == (1...30).map { "m\($0)" })
    #expect(!probe.events.contains { if case .notice = $0 { true } else { false } })
    for event in probe.events {
      if case .members(let room, let names) = event { #expect(room == "lobby" && names == ["ada"]) }
    }
    await probe.stop()
  }

  @Test func theFIFOTellsConfirmationsRequestsAndProbesApart() async throws {
    var configuration = ChatClient.Configuration.forTesting
    configuration.lineSendCompletion = .handled
    // Never run: its state is driven by hand, as the writer and the reader would.
    let client = try ChatClient(url: "tcp://127.0.0.1:1", name: "ada", configuration: configuration)
    client.state.withLock { $0.link = .ready(.idle()) }
    // A message (its `/who` confirms it), then a members request, a probe, a rooms request.
    let sent = Task { try await client.send("hi") }
    try await eventually("queued") { client.queuedCount == 1 }
    let events = client.state.withLock { state -> [[ChatClient.Event]] in
      #expect(state.nextToWrite()?.wire == ["msg:hi", "/who"])
      _ = state.ask(.members)
      _ = state.ask(.members)  // not yet written: asked once
      #expect(state.nextQueryToWrite() == "/who")
      #expect(state.nextQueryToWrite() == nil)
      state.link = .ready(.idle(probeRepliesExpected: 1))
      _ = state.ask(.rooms)
      #expect(state.nextQueryToWrite() == "/rooms")
      var resumes: [ChatResume] = []
      let replies = [
        "* in lobby (1): ada",  // the confirmation
        "* in lobby (2): ada, b\\nob",  // the members request
        "* rooms: lobby (2)",  // the request's (or the probe's: both ask the same)
        "* rooms: lobby (2)",  // the other one: the probe's, swallowed
      ]
      let events = replies.map { line in
        var events: [ChatClient.Event] = []
        _ = state.receive(line, events: &events, resumes: &resumes)
        return events
      }
      #expect(state.expectedReplies.isEmpty && state.link.open?.probeRepliesExpected == 0)
      for resume in resumes { resume.run() }
      return events
    }
    #expect(try await sent.value == nil)
    #expect(client.queuedCount == 0)
    if case .message(let m)? = events[0].first { #expect(m.text == "hi" && m.isMine) } else { Issue.record("\(events)") }
    if case .members(let room, let names)? = events[1].first {
      #expect(room == "lobby" && names == ["ada", "b\nob"])
    } else {
      Issue.record("\(events)")
    }
    #expect(events[2].map(\.isRooms) == [true])
    #expect(events[3].isEmpty)
  }

  /// A `/history` answer's lines are collected into one `.recent` only while a history
  /// request waits; unasked, a `[ID] …` line is a notice as it came, and the lines after
  /// the answer are what they were (a message, a notice).
  @Test func historyLinesMakeOneRecentEventOnlyWhenAsked() {
    var state = ChatClientState(scheme: .tcp, me: "ada", room: "lobby")
    state.link = .ready(.idle())
    var resumes: [ChatResume] = []
    func receive(_ line: String) -> [ChatClient.Event] {
      var events: [ChatClient.Event] = []
      _ = state.receive(line, events: &events, resumes: &resumes)
      return events
    }
    #expect(receive(#"[4] bob: a\nb"#).map(\.noticeText) == ["[4] bob: a\nb"])
    _ = state.ask(.history(limit: 2))
    #expect(state.nextQueryToWrite() == "/history 2")
    #expect(receive(#"[4] bob: a\nb"#).isEmpty)
    #expect(receive("[5] * bob waves").isEmpty)
    let end = receive("* end of history (2 messages, last id 5)")
    guard case .recent(let messages)? = end.first, end.count == 1 else {
      Issue.record("\(end)")
      return
    }
    #expect(messages.map(\.id) == [4, 5])
    #expect(messages[0].author == "bob" && messages[0].text == "a\nb" && !messages[0].isAction)
    #expect(messages[1].author == "" && messages[1].text == "bob waves" && messages[1].isAction)
    #expect(state.expectedReplies.isEmpty && state.lastID == nil)
    #expect(receive("* end of history (2 messages, last id 5)").map(\.noticeText) == ["* end of history (2 messages, last id 5)"])
    if case .message(let m)? = receive("bob: hi").first { #expect(m.text == "hi" && m.id == nil) } else { Issue.record("not a message") }
  }

  @Test func anOlderServersUnknownTypeIsUnsupportedNotAHang() {
    var state = ChatClientState(scheme: .ws, me: "ada", room: "lobby")
    state.link = .ready(.idle())
    _ = state.ask(.rooms)
    #expect(state.nextQueryToWrite() == #"{"type":"rooms"}"#)
    var events: [ChatClient.Event] = []
    var resumes: [ChatResume] = []
    _ = state.receive(
      #"{"type":"error","data":{"code":"unknown_type","message":"unknown type \"rooms\""}}"#, events: &events,
      resumes: &resumes)
    guard case .error(let error)? = events.first else {
      Issue.record("\(events)")
      return
    }
    #expect(error == .unsupported)
    #expect(state.expectedReplies.isEmpty)
    // Without a request waiting, the same error is the server's error, as before.
    events.removeAll()
    _ = state.receive(
      #"{"type":"error","data":{"code":"unknown_type","message":"unknown type \"x\""}}"#, events: &events,
      resumes: &resumes)
    if case .error(let other)? = events.first { #expect(other == .serverError) } else { Issue.record("\(events)") }
  }

  @Test func aLostConnectionsUnansweredRequestsAreAskedAgain() {
    var state = ChatClientState(scheme: .ws, me: "ada", room: "lobby")
    state.link = .ready(.idle())
    _ = state.ask(.members)
    _ = state.ask(.rooms)
    #expect(state.nextQueryToWrite() != nil)
    _ = state.connectionLost()
    #expect(state.queries == [.rooms, .members])
    #expect(state.expectedReplies.isEmpty)
    #expect(state.nextQueryToWrite() == nil)  // not ready: the next connection writes them
  }

  @Test(arguments: [
    ("* in lobby (0): ", "lobby", [String]()), ("* in dev-2 (2): a, b", "dev-2", ["a", "b"]),
    ("* in lobby (3)", "lobby", []), (#"* in r (1): x\u{2028}y"#, "r", ["x\u{2028}y"]),
  ])
  func whoRepliesAreParsed(line: String, room: String, names: [String]) {
    #expect(ChatWire.decodeLine(line, room: "other", me: "me") == .members(room: room, names: names))
  }

  @Test func roomsRepliesAreParsed() {
    #expect(ChatWire.decodeLine("* rooms: ", room: "r", me: "me") == .rooms([]))
    #expect(
      ChatWire.decodeLine("* rooms: dev (1), lobby (12)", room: "r", me: "me")
        == .rooms([.init(name: "dev", members: 1), .init(name: "lobby", members: 12)]))
    #expect(ChatWire.decodeLine("* rooms: dev", room: "r", me: "me") == .notice("* rooms: dev"))
    #expect(
      ChatWire.decodeJSON(#"{"type":"rooms","data":[{"name":"a","members":2}]}"#, room: "r", me: "me")
        == .rooms([.init(name: "a", members: 2)]))
    #expect(
      ChatWire.decodeJSON(#"{"type":"members","data":{"room":"a","names":["x","y"]}}"#, room: "r", me: "me")
        == .members(room: "a", names: ["x", "y"]))
  }
}

extension ChatClient.Event {
  fileprivate var isRooms: Bool { if case .rooms = self { true } else { false } }
  fileprivate var noticeText: String? { if case .notice(let text) = self { text } else { nil } }
}
