import Dispatch
import Foundation
import SwitchboardChat
import SwitchboardServer
import SwitchboardTestSupport
import SwitchboardWire
import Testing

/// A local broker that holds one room's snapshot on the loop that asked for it until the
/// test lets it go: the loop stands still with the answer in hand, as a loaded machine
/// leaves it for a moment, while the test's next frame arrives.
private final class HeldOpenBroker: ForwardingBroker, @unchecked Sendable {
  let held: String
  /// Signalled once the loop holds the snapshot.
  let reached = DispatchSemaphore(value: 0)
  /// Lets the loop go on.
  let release = DispatchSemaphore(value: 0)

  init(holding room: String) { held = room }

  override func openRoom(
    _ room: String, recent limit: Int, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<RoomSnapshot, BrokerError>) -> Void
  ) {
    guard room == held else { return local.openRoom(room, recent: limit, on: executor, completion: completion) }
    local.openRoom(room, recent: limit, on: executor) { [reached, release] result in
      reached.signal()
      // Bounded: a test that never releases still ends.
      _ = release.wait(timeout: .now() + 10)
      completion(result)
    }
  }
}

/// Two joins whose answers come in the other order: a WebSocket client at `/` is joining
/// `lobby` (still loading) when its `join` frame for an open room arrives. The open room
/// answers at once; the lobby's answer comes from a task of the loop after that read. The
/// later join's replay must still arrive whole, and nothing of the lobby after it. A line
/// member's `/join` likewise (docs/ARCHITECTURE.md, "Replays").
@Suite(.onTestThreads)
struct JoinOrderTests {
  static let room = "big"
  /// Three replay slices' worth (``HistoryReplay`` cuts at 512 KiB).
  static let messages = 24
  static let messageBytes = 60 << 10

  /// A server on one loop (the held room's answer is a task of the loop that reads the
  /// member's next command) whose broker holds `room`'s opening.
  private func withHeldServer(
    holding room: String, _ body: (ChatServer, HeldOpenBroker) async throws -> Void
  ) async throws {
    let broker = HeldOpenBroker(holding: room)
    try await withServer({
      $0.broker = { _ in broker }
      $0.loopCount = 1
    }) { server in try await body(server, broker) }
  }

  @Test func aJoinFramesReplayIsWholeWhenTheFirstRoomsAnswerComesAfterIt() async throws {
    try await withHeldServer(holding: "lobby") { server, broker in
      let http = server.httpAddress!
      // The room's history, seen back by its writer, so kept before the member joins.
      let writer = try WebSocketTestClient(http, path: "/rooms/\(Self.room)?format=text&notify_self=1")
      let text = String(repeating: "a", count: Self.messageBytes)
      try writer.send(texts: Array(repeating: text, count: Self.messages))
      for _ in 0..<Self.messages { _ = try writer.nextText(timeout: .seconds(10)) }

      let member = try WebSocketTestClient(http, path: "/")
      #expect(broker.reached.wait(timeout: .now() + 10) == .success, "the lobby was never opened")
      try member.send(text: #"{"type":"join","data":{"room":"\#(Self.room)","since":0}}"#)
      // The frame is in the server's socket before the loop goes on (loopback).
      broker.release.signal()

      var replayed = 0
      var others: [String] = []
      let deadline = ContinuousClock.now + .seconds(10)
      while replayed < Self.messages, ContinuousClock.now < deadline {
        let left = deadline - ContinuousClock.now
        guard let frame = try? member.nextJSON(type: "history", timeout: left) else { break }
        let data = frame["data"] as? [[String: Any]] ?? []
        let rooms = Set(data.compactMap { $0["room"] as? String })
        if rooms == [Self.room] {
          replayed += data.count
        } else if !data.isEmpty || replayed > 0 {
          // An empty lobby history before the room's is harmless; one after it is not.
          others.append("\(rooms) \(data.count) after \(replayed)")
        }
      }
      #expect(replayed == Self.messages, "messages replayed: \(replayed) of \(Self.messages); other histories: \(others)")
      #expect(others.isEmpty, "histories of a room the member left: \(others)")
      withExtendedLifetime(writer) {}
    }
  }

  /// The line dialect's `/join`: the answer for a room the member already left is not
  /// sent after the answer for the room it is in.
  @Test func aLineJoinsLateAnswerDoesNotNameARoomTheMemberLeft() async throws {
    try await withHeldServer(holding: "slow") { server, broker in
      let tcp = server.tcpAddress!
      // The room is open (it has a member) before the test's member moves there.
      let resident = try LineClient(tcp)
      try resident.sendLine("/join \(Self.room)")
      try resident.expectLine(timeout: .seconds(10)) { $0.hasPrefix("* you are now in \(Self.room)") }

      let member = try LineClient(tcp)
      try member.sendLine("/join slow")
      #expect(broker.reached.wait(timeout: .now() + 10) == .success, "the room was never opened")
      try member.sendLine("/join \(Self.room)")
      broker.release.signal()
      var lines = [try member.expectLine(timeout: .seconds(10)) { $0.hasPrefix("* you are now in \(Self.room)") }]
      // A command sent after that answer: its reply comes after anything the join left.
      try member.sendLine("/rooms")
      while let last = lines.last, !last.hasPrefix("* rooms:") { lines.append(try member.readLine(timeout: .seconds(10))) }
      #expect(!lines.contains { $0.hasPrefix("* you are now in slow") }, "\(lines)")
      withExtendedLifetime(resident) {}
    }
  }
}
