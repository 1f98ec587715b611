import Foundation
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// A room's messages that reach a loop together go out as one batch per member
/// (`MessageBatch`: every frame back to back, one write). Against a real server: senders
/// write bursts of frames, so that one read holds many messages, and every kind of member
/// — text dialect with and without `notify_self`, JSON, line — must still see exactly the
/// room's messages in the room's one order (a text member without `notify_self` all but
/// its own).
@Suite(.onTestThreads)
struct BatchedDeliveryTests {
  /// Whether `text` is one of this test's messages (`loud-12`).
  private static func isSent(_ text: Substring) -> Bool {
    guard let dash = text.firstIndex(of: "-") else { return false }
    let rest = text[text.index(after: dash)...]
    return ["loud", "quietA", "quietB"].contains(String(text[..<dash])) && !rest.isEmpty
      && rest.allSatisfy(\.isASCII) && rest.allSatisfy(\.isNumber)
  }

  @Test(arguments: [1, 2])
  func burstsReachEveryKindOfMemberInTheRoomsOrder(loops: Int) async throws {
    try await withServer({ $0.loopCount = loops }) { server in
      let loud = try WebSocketTestClient(server.httpAddress!, path: "/rooms/lobby?format=text&notify_self=1")
      let watcher = try WebSocketTestClient(server.httpAddress!, path: "/rooms/lobby?format=text&notify_self=1")
      let quietA = try WebSocketTestClient(server.httpAddress!, path: "/rooms/lobby?format=text")
      let quietB = try WebSocketTestClient(server.httpAddress!, path: "/rooms/lobby?format=text")
      let json = try WebSocketTestClient(server.httpAddress!, path: "/rooms/lobby")
      _ = try json.nextJSON(type: "history")
      try json.send(text: "jsonuser")
      _ = try json.nextJSON(type: "color")
      let line = try LineClient(server.tcpAddress!)
      try line.sendLine("iam:liner")
      try await eventually { server.hub.counts.members == 6 }

      let senders = [("loud", loud), ("quietA", quietA), ("quietB", quietB)]
      let rounds = 10
      let burst = 20
      for round in 0..<rounds {
        for (name, client) in senders {
          // One write of `burst` frames: the server reads them in one go.
          try client.send(texts: (0..<burst).map { "\(name)-\(round * burst + $0)" })
        }
      }
      let total = senders.count * rounds * burst

      // The room's order, as a member that sent nothing sees it.
      var order: [String] = []
      for _ in 0..<total { order.append(try watcher.nextText(timeout: .seconds(10))) }
      #expect(Set(order).count == total, "every message once")
      for (name, _) in senders {
        let mine = order.filter { $0.hasPrefix("\(name)-") }
        #expect(mine == (0..<(rounds * burst)).map { "\(name)-\($0)" }, "\(name)'s messages in its order")
      }
      var heard: [String] = []
      for _ in 0..<total { heard.append(try loud.nextText(timeout: .seconds(10))) }
      #expect(heard == order, "notify_self=1: everything, in the room's order")
      for (name, client) in [("quietA", quietA), ("quietB", quietB)] {
        let expected = order.filter { !$0.hasPrefix("\(name)-") }
        var got: [String] = []
        for _ in 0..<expected.count { got.append(try client.nextText(timeout: .seconds(10))) }
        #expect(got == expected, "\(name): all but its own, in the room's order")
      }
      var texts: [String] = []
      var ids: [Int] = []
      while texts.count < total {
        let frame = try json.nextJSON(type: "message", timeout: .seconds(10))
        let data = frame["data"] as? [String: Any] ?? [:]
        guard let text = data["text"] as? String, Self.isSent(Substring(text)) else { continue }
        texts.append(text)
        ids.append((data["id"] as? NSNumber)?.intValue ?? -1)
      }
      #expect(texts == order, "JSON: the room's order")
      #expect(zip(ids, ids.dropFirst()).allSatisfy { $1 == $0 + 1 }, "JSON: consecutive ids")
      var lines: [String] = []
      while lines.count < total {
        let text = try line.expectLine(timeout: .seconds(10)) { line in
          guard let colon = line.range(of: ": ") else { return false }
          return Self.isSent(line[colon.upperBound...])
        }
        lines.append(String(text[text.range(of: ": ")!.upperBound...]))
      }
      #expect(lines == order, "line dialect: the room's order")
    }
  }
}
