import SwitchboardServer
import SwitchboardTestSupport
import Testing

@testable import SwitchboardClient

/// ``ChatViewModel/typingMembers``, fed events directly: sorted names, each gone on a stop,
/// a message from it, a leave, or on its own after ``ChatViewModel/typingExpiry``.
@Suite(.onTestThreads) struct ChatViewModelTypingTests {
  @Test @MainActor func typingMembersAreSortedAndEndOnAStopAMessageOrALeave() async throws {
    let model = ChatViewModel(url: "ws://127.0.0.1:1/rooms/dev", name: "me")
    model.receive(.typing(room: "dev", author: "zoe", active: true))
    model.receive(.typing(room: "dev", author: "bob", active: true))
    model.receive(.typing(room: "other", author: "eve", active: true))
    try await eventually("two typing") { model.typingMembers == ["bob", "zoe"] }
    model.receive(.typing(room: "dev", author: "zoe", active: false))
    try await eventually("zoe stopped") { model.typingMembers == ["bob"] }
    model.receive(.message(.init(id: 1, room: "dev", author: "bob", text: "hi")))
    try await eventually("bob sent") { model.typingMembers.isEmpty }
    model.receive(.typing(room: "dev", author: "al", active: true))
    try await eventually("al typing") { model.typingMembers == ["al"] }
    model.receive(.presence(.init(kind: .leave, author: "al", room: "dev", members: 0)))
    try await eventually("al left") { model.typingMembers.isEmpty }
  }

  @Test @MainActor func aTypingNameExpiresOnItsOwn() async throws {
    let model = ChatViewModel(url: "tcp://127.0.0.1:1", name: "me", room: "dev")
    model.typingExpiry = .milliseconds(300)
    model.receive(.typing(room: "dev", author: "bob", active: true))
    try await eventually("bob typing") { model.typingMembers == ["bob"] }
    let start = ContinuousClock.now
    try await eventually("bob expired") { model.typingMembers.isEmpty }
    #expect(ContinuousClock.now - start >= .milliseconds(200))
    // A start again restarts the clock.
    model.receive(.typing(room: "dev", author: "bob", active: true))
    try await eventually("bob typing again") { model.typingMembers == ["bob"] }
    try await eventually("bob expired again") { model.typingMembers.isEmpty }
  }
}

/// Two models on a real server: one user types into the field, the other model's
/// ``ChatViewModel/typingMembers`` shows it until the message arrives.
@Suite(.onTestThreads) struct ChatViewModelTypingServerTests {
  @Test @MainActor func aModelSeesAnotherModelsUserType() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let watcher = ChatViewModel(
      url: wsURL(server), name: "watcher", room: "dev", configuration: TypingTestSupport.configuration)
    let typist = ChatViewModel(
      url: wsURL(server), name: "typist", room: "dev", configuration: TypingTestSupport.configuration)
    watcher.start()
    typist.start()
    defer {
      watcher.stop()
      typist.stop()
    }
    try await eventually("both answered") {
      watcher.client?.serverFeatures?.enabled.contains(.typing) == true
        && typist.client?.serverFeatures?.enabled.contains(.typing) == true
    }
    try await eventually("typist shown typing") {
      typist.userIsTyping("h")
      return watcher.typingMembers == ["typist"]
    }
    try await typist.send("hello")
    try await eventually("the message ends it") {
      watcher.typingMembers.isEmpty && watcher.messages.contains { $0.text == "hello" }
    }
    // An emptied field is a stop.
    try await eventually("typist typing again") {
      typist.userIsTyping("x")
      return watcher.typingMembers == ["typist"]
    }
    typist.userIsTyping("")
    try await eventually("stopped") { watcher.typingMembers.isEmpty }
  }
}
