import Foundation
import SwitchboardChat
import Testing

struct JSONDialectTests {
  private func object(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  @Test func messageFramesMatchTheSeedShapePlusIdAndRoom() throws {
    let m = ChatMessage(id: 7, room: "lobby", time: 1234, author: "bob \"b\"", color: "red", text: "hi\n\u{1}é")
    let frame = try object(JSONDialect.encode(.message(m, origin: nil))!)
    #expect(frame["type"] as? String == "message")
    let data = try #require(frame["data"] as? [String: Any])
    #expect(data["author"] as? String == "bob \"b\"")
    #expect(data["text"] as? String == "hi\n\u{1}é")
    #expect((data["id"] as? NSNumber)?.intValue == 7)
    #expect((data["time"] as? NSNumber)?.intValue == 1234)
    #expect(data["room"] as? String == "lobby")
    #expect(data["color"] as? String == "red")
  }

  @Test func historyCarriesEpochAndRecovered() throws {
    let m = ChatMessage(id: 1, room: "r", time: 1, author: "a", color: "red", text: "x")
    let frame = try object(JSONDialect.history([m, m], epoch: "abc", recovered: false))
    #expect((frame["data"] as? [Any])?.count == 2)
    #expect(frame["epoch"] as? String == "abc")
    #expect((frame["recovered"] as? NSNumber)?.boolValue == false)
  }

  @Test func presenceAckErrorAndColor() throws {
    let p = PresenceEvent(kind: .rename(from: "old"), author: "new", room: "r", members: 2, color: "blue")
    let presence = try object(JSONDialect.encode(.presence(p, origin: nil))!)
    let data = try #require(presence["data"] as? [String: Any])
    #expect(data["event"] as? String == "rename")
    #expect(data["previous"] as? String == "old")
    let ack = try object(JSONDialect.ack(ref: "\"r1\"", id: 3))
    #expect((ack["data"] as? [String: Any])?["ref"] as? String == "r1")
    let error = try object(JSONDialect.error(code: "unknown_type", message: "nope"))
    #expect((error["data"] as? [String: Any])?["code"] as? String == "unknown_type")
    #expect(try object(JSONDialect.color("red"))["data"] as? String == "red")
  }

  @Test(arguments: [
    ("alice", ClientFrame.plain("alice")),
    ("[1,2]", .plain("[1,2]")),
    ("{not json", .plain("{not json")),
    (#"{"type":"message","data":{"text":"hi"}}"#, .message(text: "hi", ref: nil)),
    (#"{"type":"message","data":"hi"}"#, .message(text: "hi", ref: nil)),
    (#"{"type":"message","data":{"text":"hi","ref":"a"}}"#, .message(text: "hi", ref: "\"a\"")),
    (#"{"type":"message","data":{"text":"hi","ref":42}}"#, .message(text: "hi", ref: "42")),
    (#"{"type":"join","data":{"name":"bob","room":"dev","since":0}}"#, .join(name: "bob", room: "dev", since: 0)),
    (#"{"type":"join","data":{"since":12}}"#, .join(name: nil, room: nil, since: 12)),
    (#"{"type":"join"}"#, .join(name: nil, room: nil, since: nil)),
  ])
  func parsesClientFrames(text: String, expected: ClientFrame) {
    #expect(ClientFrame.parse(text) == expected)
  }

  @Test(arguments: [
    #"{"type":"frob"}"#, #"{"data":1}"#, #"{"type":"message","data":{}}"#,
    #"{"type":"message","data":{"text":"x","ref":[1]}}"#, #"{"type":"join","data":{"room":"a b"}}"#,
    #"{"type":"join","data":{"since":-1}}"#, #"{"type":"join","data":{"since":true}}"#,
    #"{"type":"join","data":{"since":1.5}}"#, #"{"type":"join","data":"x"}"#,
  ])
  func unusableObjectsAreInvalidNotFatal(text: String) {
    guard case .invalid(let code, _) = ClientFrame.parse(text) else {
      Issue.record("\(text) was accepted")
      return
    }
    #expect(!code.isEmpty)
  }

  @Test func randomInputsNeverCrash() {
    var rng = SplitMix(seed: 99)
    let alphabet = Array(#"{}[]":,\ type data message join text ref since 0123456789.-etrufnl"#.utf8)
    for _ in 0..<3000 {
      let n = Int(rng.next() % 60)
      let bytes = (0..<n).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
      _ = ClientFrame.parse(String(decoding: bytes, as: UTF8.self))
    }
  }
}
