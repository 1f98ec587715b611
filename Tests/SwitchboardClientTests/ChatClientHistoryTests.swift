import Foundation
import SwitchboardClient
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// ``ChatClient/requestHistory(limit:)`` on every dialect, written against the public API:
/// the answer is one ``ChatClient/Event/recent(_:)`` with the room's last messages and their
/// ids, and it moves neither the resume point nor the messages already delivered.
@Suite(.onTestThreads)
struct ChatClientHistoryTests {
  @Test(arguments: ["ws", "tcp", "udp"])
  func theLastMessagesComeAsOneRecentEventAndTheResumePointStays(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let url = scheme == "ws" ? wsURL(server) : scheme == "tcp" ? tcpURL(server) : udpURL(server)
    let ada = try ChatProbe(url, name: "ada")
    try await ada.waitReady()
    let bea = try ChatProbe(wsURL(server), name: "bea")
    try await bea.waitReady()
    var ids: [UInt64] = []
    for text in ["one", "two", "three"] { ids.append(try #require(try await bea.client.send(text))) }
    let actionID = try #require(try await bea.client.sendAction("waves"))
    // A line member gets another's action as a `* ` line, a notice.
    try await ada.waitFor("the action") {
      switch $0 {
      case .message(let m): m.text == "waves"
      case .notice(let line): line == "* bea waves"
      default: false
      }
    }
    let resumePoint = ada.client.resumePoint
    let before = ada.events.count

    try await ada.client.requestHistory(limit: 3)
    let answer = try await ada.waitFor("recent", from: before) { if case .recent = $0 { true } else { false } }
    guard case .recent(let messages) = answer else { return }
    #expect(messages.map(\.text).prefix(2) == ["two", "three"])
    #expect(messages.prefix(2).map(\.id) == [ids[1], ids[2]])
    #expect(messages.prefix(2).allSatisfy { $0.author == "bea" && !$0.isMine && !$0.isAction })
    let action = try #require(messages.last)
    #expect(action.isAction && action.id == actionID)
    // The line dialect cannot tell an action's author from its text; the JSON frame can.
    #expect(scheme == "ws" ? action.author == "bea" && action.text == "waves" : action.text == "bea waves")
    #expect(ada.client.resumePoint == resumePoint)
    // A view: nothing delivered again, no line of the answer shown as a notice.
    #expect(
      !ada.events.dropFirst(before).contains {
        switch $0 {
        case .message, .history, .notice: true
        default: false
        }
      })

    // The server's default (20) and more than the room keeps: every message, oldest first.
    let again = ada.events.count
    try await ada.client.requestHistory()
    let all = try await ada.waitFor("all", from: again) { if case .recent = $0 { true } else { false } }
    guard case .recent(let every) = all else { return }
    #expect(every.map(\.id) == ids + [actionID])
    await #expect(throws: ChatClientError.invalidArgument) { try await ada.client.requestHistory(limit: 0) }
    await ada.stop()
    await bea.stop()
  }

  /// An empty room answers with an empty ``ChatClient/Event/recent(_:)``: the line dialect's
  /// `* no kept messages in ROOM` ends the answer as `* end of history …` does.
  @Test(arguments: ["ws", "tcp"])
  func anEmptyRoomAnswersWithNoMessages(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let ada = try ChatProbe(scheme == "ws" ? wsURL(server) : tcpURL(server), name: "ada", room: "quiet")
    try await ada.waitReady()
    // On tcp, once the join is answered (its `* you are now in quiet` notice).
    try await ada.waitFor("in the room") { if case .notice = $0 { true } else { if case .history = $0 { true } else { false } } }
    let before = ada.events.count
    try await ada.client.requestHistory(limit: 5)
    let answer = try await ada.waitFor("recent", from: before) { if case .recent = $0 { true } else { false } }
    guard case .recent(let messages) = answer else { return }
    #expect(messages.isEmpty)
    #expect(!ada.events.dropFirst(before).contains { if case .notice = $0 { true } else { false } })
    await ada.stop()
  }
}
