import Foundation
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// The JSON protocol's `history` request (docs/PROTOCOLS.md): answered with `history` frames
/// marked `"requested":true` holding the room's last N messages, the line dialect's
/// `/history N` in frames; bad limits are `invalid_data` errors and the connection stays.
@Suite(.onTestThreads)
struct JSONHistoryRequestTests {
  @Test func theLastNMessagesAreAnsweredAsTheLineCommandIs() async throws {
    try await withServer { server in
      let ws = try WebSocketTestClient(server.httpAddress!, path: "/rooms/dev?name=ada")
      _ = try ws.nextJSON(type: "history")
      let line = try LineClient(server.tcpAddress!)
      try line.sendLine("iam:bob")
      try line.sendLine("/join dev")
      try line.expectLine { $0.hasPrefix("* you are now in dev") }
      for text in ["one", "two", "three"] { try line.sendLine("msg:" + text) }
      try await eventually { server.hub.history(room: "dev", last: 10).count == 3 }
      let ids = server.hub.history(room: "dev", last: 10).map(\.id)

      try ws.send(text: #"{"type":"history","data":{"limit":2}}"#)
      let answer = try ws.nextJSON(type: "history")
      #expect(answer["requested"] as? Bool == true)
      #expect(answer["more"] == nil)
      #expect(answer["recovered"] as? Bool == true)
      #expect(answer["epoch"] as? String == server.hub.epoch(room: "dev"))
      let messages = try #require(answer["data"] as? [[String: Any]])
      #expect(messages.map { $0["text"] as? String } == ["two", "three"])
      #expect(messages.map { ($0["id"] as? NSNumber)?.uint64Value } == Array(ids.suffix(2)))
      #expect(messages.allSatisfy { $0["author"] as? String == "bob" && $0["room"] as? String == "dev" })
      try line.sendLine("/history 2")
      try line.expectLine("[\(ids[1])] bob: two")
      try line.expectLine("[\(ids[2])] bob: three")
      try line.expectLine("* end of history (2 messages, last id \(ids[2]))")

      // No data, no limit, a null one: the default (20), here every message.
      for frame in [#"{"type":"history"}"#, #"{"type":"history","data":{}}"#, #"{"type":"history","data":{"limit":null}}"#] {
        try ws.send(text: frame)
        let all = try #require(try ws.nextJSON(type: "history")["data"] as? [[String: Any]])
        #expect(all.map { $0["text"] as? String } == ["one", "two", "three"], "\(frame)")
      }
    }
  }

  @Test func aBadLimitIsInvalidDataAndTheConnectionStays() async throws {
    try await withServer { server in
      let ws = try WebSocketTestClient(server.httpAddress!, path: "/rooms/dev?name=ada")
      _ = try ws.nextJSON(type: "history")
      for limit in ["0", "-1", "1.5", "10000001", "1e30", #""5""#, "true", "[]"] {
        try ws.send(text: #"{"type":"history","data":{"limit":\#(limit)}}"#)
        let error = try ws.nextJSON(type: "error")
        let data = try #require(error["data"] as? [String: Any])
        #expect(data["code"] as? String == "invalid_data", "\(limit)")
        #expect(data["message"] as? String == "data.limit must be a whole number from 1 to 10000000", "\(limit)")
      }
      try ws.send(text: #"{"type":"history","data":"x"}"#)
      #expect((try ws.nextJSON(type: "error")["data"] as? [String: Any])?["code"] as? String == "invalid_data")
      // The largest limit is taken; the connection still answers.
      try ws.send(text: #"{"type":"history","data":{"limit":10000000}}"#)
      #expect(try ws.nextJSON(type: "history")["requested"] as? Bool == true)
    }
  }

  /// A long answer leaves as several frames, each within a slice (``HistoryReplay``), every
  /// one but the last with `"more":true`; asked while the join's own replay is under way,
  /// it follows that replay instead of cutting it short, and a second request asked then
  /// follows the first's answer.
  @Test func aLongAnswerFollowsTheJoinsReplayInSlices() async throws {
    try await withServer { server in
      let writer = try WebSocketTestClient(server.httpAddress!, path: "/rooms/big?format=text")
      // 8 KiB of byte 0x01 is 48 KiB of JSON escapes: about ten to a 512 KiB slice.
      let text = String(repeating: "\u{01}", count: 8 << 10)
      for _ in 0..<4 { try writer.send(texts: Array(repeating: text, count: 10)) }
      try await eventually { server.hub.history(room: "big", last: 100).count == 40 }

      let ws = try WebSocketTestClient(server.httpAddress!, path: "/rooms/big?name=ada")
      try ws.send(texts: [#"{"type":"history","data":{"limit":30}}"#, #"{"type":"history","data":{"limit":1}}"#])
      var joined: [[String: Any]] = []
      var requested: [[String: Any]] = []
      var frames: [(requested: Bool, more: Bool)] = []
      while frames.last.map({ !$0.requested || $0.more }) ?? true {
        let frame = try ws.nextJSON(type: "history", timeout: .seconds(30))
        let isRequested = frame["requested"] as? Bool == true
        let messages = try #require(frame["data"] as? [[String: Any]])
        if isRequested { requested += messages } else { joined += messages }
        frames.append((isRequested, frame["more"] as? Bool == true))
      }
      #expect(joined.count == 40)
      #expect(requested.count == 30)
      let ids = server.hub.history(room: "big", last: 30).map(\.id)
      #expect(requested.map { ($0["id"] as? NSNumber)?.uint64Value } == ids)
      // The join's frames, then the answer's: each part in slices, `more` on all but its last.
      let firstRequested = try #require(frames.firstIndex { $0.requested })
      let join = frames[..<firstRequested]
      let answer = frames[firstRequested...]
      #expect(answer.allSatisfy { $0.requested })
      #expect(join.count > 1 && answer.count > 1)
      #expect(join.dropLast().allSatisfy { $0.more } && join.last?.more == false)
      #expect(answer.dropLast().allSatisfy { $0.more } && answer.last?.more == false)
      // The second request, waiting behind both, is answered next.
      let second = try ws.nextJSON(type: "history", timeout: .seconds(30))
      #expect(second["requested"] as? Bool == true && second["more"] == nil)
      #expect((second["data"] as? [[String: Any]])?.map { ($0["id"] as? NSNumber)?.uint64Value } == [ids.last])
      withExtendedLifetime(writer) {}
    }
  }
}
