import SwitchboardServer
import SwitchboardTestSupport
import Testing

@testable import SwitchboardClient

/// Typing indicators between real WebSocket clients and a real server (one node): the
/// features answer, a typing member seen by another that asked (start, stop, the server's
/// expiry, a message ending it); a client that did not ask sees none.
@Suite(.onTestThreads) struct ChatClientTypingTests {
  @Test func aWebSocketMemberSeesAnotherTypeStopAndExpire() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let watcher = try ChatProbe(
      wsURL(server), name: "watcher", room: "dev", configuration: TypingTestSupport.configuration)
    let typist = try ChatProbe(
      wsURL(server), name: "typist", room: "dev", configuration: TypingTestSupport.configuration)
    let plain = try ChatProbe(wsURL(server), name: "plain", room: "dev")
    defer {
      Task {
        await watcher.stop()
        await typist.stop()
        await plain.stop()
      }
    }
    for probe in [watcher, typist] {
      try await probe.waitReady()
      let answer = try await probe.waitFor("the features answer", TypingTestSupport.isFeatures)
      if case .features(let features) = answer {
        #expect(features.version == 2 && features.supports(.typing) && features.enabled.contains(.typing))
      }
      #expect(probe.client.serverFeatures?.enabled.contains(.typing) == true)
    }
    try await plain.waitReady()
    #expect(plain.client.serverFeatures == nil)

    typist.client.setTyping(true)
    let started = try await watcher.waitFor("typist typing", TypingTestSupport.isTyping("typist", true))
    if case .typing(let room, _, _) = started { #expect(room == "dev") }
    // Throttled: more keystrokes within the second send nothing more.
    let mark = watcher.events.count
    typist.client.setTyping(true)
    typist.client.setTyping(false)
    try await watcher.waitFor("typist stopped", from: mark, TypingTestSupport.isTyping("typist", false))
    #expect(watcher.events.dropFirst(mark).filter(TypingTestSupport.isTyping("typist", true)).isEmpty)

    // The server's expiry: a start and then nothing; a stop comes on its own (5 s).
    // As a person types on: a keystroke within a second of the last start is not sent,
    // the first one after it is.
    let again = watcher.events.count
    try await TypingTestSupport.typeUntil(typist, seenBy: watcher, from: again)
    try await watcher.waitFor(
      "the server's expiry", from: again, timeout: .seconds(12), TypingTestSupport.isTyping("typist", false))

    // A message ends it: typing, then a message; the stop comes without waiting for expiry.
    let third = watcher.events.count
    try await TypingTestSupport.typeUntil(typist, seenBy: watcher, from: third)
    try await typist.client.send("done")
    try await watcher.waitFor(
      "stopped by the message", from: third, timeout: .seconds(3), TypingTestSupport.isTyping("typist", false)
    )
    _ = try await watcher.waitForMessage("done")
    // The typist never hears itself; the member that did not ask hears nothing; the history
    // holds only the message.
    #expect(!typist.events.contains { if case .typing = $0 { true } else { false } })
    _ = try await plain.waitForMessage("done")
    #expect(!plain.events.contains { if case .typing = $0 { true } else { false } })
    #expect(!plain.events.contains(where: TypingTestSupport.isFeatures))
    #expect(plain.messages.map(\.text) == ["done"])
  }
}
