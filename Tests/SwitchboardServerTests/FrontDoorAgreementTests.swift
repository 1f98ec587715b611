import Foundation
import SwitchboardIO
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// Every front door answers alike: an empty message is published nowhere (ignored on lines,
/// refused with `invalid_data` in JSON, so a send waiting for its ack ends); a text with line
/// breaks is one message from a line client (`emsg:`) as from a WebSocket one; a rename by
/// `iam:` is confirmed; an action over WebSocket is an action for line members too.
@Suite(.onTestThreads)
struct FrontDoorAgreementTests {
  @Test(arguments: ["msg:", "msg:   ", "emsg:", "emsg: \t"])
  func anEmptyMsgLineIsIgnoredAsAnEmptyLineIs(line: String) async throws {
    try await withServer { server in
      let (reader, writer) = try linePair(server)
      try writer.sendLine(line)
      try writer.sendLine("after")
      #expect(try reader.readLine() == "w: after")
      #expect(server.hub.history(room: "lobby", last: 10).map(\.text) == ["after"])
    }
  }

  @Test func anEmptyJSONMessageIsRefusedWithItsRefAndNotPublished() async throws {
    try await withServer { server in
      let ws = try WebSocketTestClient(server.httpAddress!, path: "/?name=wsuser")
      _ = try ws.nextJSON(type: "history")
      for frame in [
        #"{"type":"message","data":{"text":"","ref":"r1"}}"#,
        #"{"type":"message","data":{"text":"  ","ref":"r2","action":true}}"#,
      ] {
        try ws.send(text: frame)
        let error = try ws.nextJSON(type: "error")
        let data = try #require(error["data"] as? [String: Any])
        #expect(
          data["code"] as? String == "invalid_data" && data["message"] as? String == "a message needs text")
        #expect(data["ref"] != nil)
      }
      try ws.send(text: "")  // a plain frame with nothing in it: ignored
      try ws.send(text: #"{"type":"message","data":{"text":"after","ref":"r3"}}"#)
      _ = try ws.nextJSON(type: "ack")
      #expect(server.hub.history(room: "lobby", last: 10).map(\.text) == ["after"])
    }
  }

  /// `emsg:` carries a text with line breaks (written with the line escapes) as one message,
  /// which a WebSocket member gets exactly and a line member escaped, on one line.
  @Test func anEscapedLineIsOneMessageWithItsLineBreaks() async throws {
    try await withServer { server in
      let (reader, writer) = try linePair(server)
      try writer.sendLine(#"emsg:two\nlines and C:\\path"#)
      try reader.expectLine(#"w: two\nlines and C:\path"#)
      try await eventually("stored") { !server.hub.history(room: "lobby", last: 1).isEmpty }
      #expect(server.hub.history(room: "lobby", last: 1).map(\.text) == ["two\nlines and C:\\path"])
    }
  }

  /// A member named by its first line and renamed by `iam:` later is told its new name, as
  /// `/nick` tells it; the first `iam:` is not answered (the line dialect's join).
  @Test func aRenameByIamIsConfirmed() async throws {
    try await withServer { server in
      let client = try LineClient(server.tcpAddress!)
      try client.sendLine("iam:first")
      try client.sendLine("/who")
      try client.expectLine("* in lobby (1): first")  // nothing came before the /who answer
      try client.sendLine("iam:second")
      try client.expectLine("* you are now second")
    }
  }

  /// A WebSocket member's action reaches a line member as `* NAME ACTION`; one that would
  /// read as presence is refused (`invalid_action`), as the line dialect refuses it.
  @Test func aWebSocketActionIsAnActionOnLines() async throws {
    try await withServer { server in
      let reader = try LineClient(server.tcpAddress!)
      try reader.join(as: "reader")
      let ws = try WebSocketTestClient(server.httpAddress!, path: "/?name=dave")
      _ = try ws.nextJSON(type: "history")
      try reader.expectLine("* dave has joined")
      try ws.send(text: #"{"type":"message","data":{"text":"has left","ref":"a1","action":true}}"#)
      let error = try ws.nextJSON(type: "error")
      #expect((error["data"] as? [String: Any])?["code"] as? String == "invalid_action")
      try ws.send(text: #"{"type":"message","data":{"text":"dances","ref":"a2","action":true}}"#)
      try reader.expectLine("* dave dances")
      let echo = try ws.nextJSON(type: "message")
      #expect((echo["data"] as? [String: Any])?["action"] as? Bool == true)
    }
  }
}
