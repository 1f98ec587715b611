import SwitchboardServer
import SwitchboardTestSupport
import Testing

@testable import SwitchboardClient

/// Typing indicators on the line dialect against a real server: `/typing on` answered,
/// `/typing` seen by another line member as a typing event (not a notice), and a WebSocket
/// typist reaching a line member.
@Suite(.onTestThreads) struct ChatClientTypingLineTests {
  @Test func aLineMemberNegotiatesAndSignalsTyping() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let watcher = try ChatProbe(
      tcpURL(server), name: "nc-watcher", room: "dev", configuration: TypingTestSupport.configuration)
    let typist = try ChatProbe(
      tcpURL(server), name: "nc-typist", room: "dev", configuration: TypingTestSupport.configuration)
    defer {
      Task {
        await watcher.stop()
        await typist.stop()
      }
    }
    for probe in [watcher, typist] {
      let answer = try await probe.waitFor("* typing notices on", TypingTestSupport.isFeatures)
      if case .features(let features) = answer { #expect(features.enabled == [.typing]) }
    }
    try await TypingTestSupport.typeUntil(typist, seenBy: watcher, from: 0)
    let started = try await watcher.waitFor(
      "nc-typist is typing", TypingTestSupport.isTyping("nc-typist", true))
    if case .typing(let room, _, _) = started { #expect(room == "dev") }
    #expect(
      !watcher.events.contains {
        if case .notice(let text) = $0 { text.hasSuffix(" is typing") } else { false }
      })
    #expect(!watcher.events.contains { if case .error = $0 { true } else { false } })
  }

  @Test func aWebSocketTypistReachesALineWatcher() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let watcher = try ChatProbe(
      tcpURL(server), name: "nc", room: "dev", configuration: TypingTestSupport.configuration)
    let typist = try ChatProbe(
      wsURL(server), name: "web", room: "dev", configuration: TypingTestSupport.configuration)
    defer {
      Task {
        await watcher.stop()
        await typist.stop()
      }
    }
    try await watcher.waitFor("features", TypingTestSupport.isFeatures)
    try await typist.waitFor("features", TypingTestSupport.isFeatures)
    try await TypingTestSupport.typeUntil(typist, seenBy: watcher, from: 0)
  }
}
