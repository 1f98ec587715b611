import Foundation
import SwitchboardTestSupport
import SwitchboardWire
import Testing

@Suite(.onTestThreads)
struct JSONDialectTests {
  private func object(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  private func object(_ bytes: [UInt8]) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
  }

  @Test func messageFramesMatchTheSeedShapePlusIdAndRoom() throws {
    let m = ChatMessage(
      id: 7, room: "lobby", time: 1234, author: "bob \"b\"", color: "red", text: "hi\n\u{1}é")
    let frame = try object(JSONDialect.encodedBytes(m))
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
    let presence = try object(JSONDialect.encodedBytes(p))
    let data = try #require(presence["data"] as? [String: Any])
    #expect(data["event"] as? String == "rename")
    #expect(data["previous"] as? String == "old")
    let ack = try object(JSONDialect.ack(ref: "\"r1\"", id: 3))
    #expect((ack["data"] as? [String: Any])?["ref"] as? String == "r1")
    let error = try object(JSONDialect.error(code: "unknown_type", message: "nope"))
    #expect((error["data"] as? [String: Any])?["code"] as? String == "unknown_type")
    #expect(try object(JSONDialect.color("red"))["data"] as? String == "red")
  }

  /// The answers to `who` and `rooms` are the documented objects, names and room names with
  /// anything in them (quotes, line breaks, U+2028) exact after a JSON parse.
  @Test func membersAndRoomsAnswerTheQueries() throws {
    let names = ["ada", "b\"o\\b", "line\nbreak\u{2028}", "zoë"]
    let members = try object(JSONDialect.members(room: "dev", names: names))
    #expect(members["type"] as? String == "members")
    let data = try #require(members["data"] as? [String: Any])
    #expect(data["room"] as? String == "dev")
    #expect(data["names"] as? [String] == names)
    let empty = try object(JSONDialect.members(room: "r", names: []))
    #expect((empty["data"] as? [String: Any])?["names"] as? [String] == [])
    let rooms = try object(JSONDialect.rooms([(name: "dev", members: 1), (name: "lo\"bby", members: 12)]))
    #expect(rooms["type"] as? String == "rooms")
    let list = try #require(rooms["data"] as? [[String: Any]])
    #expect(list.map { $0["name"] as? String } == ["dev", "lo\"bby"])
    #expect(list.map { ($0["members"] as? NSNumber)?.intValue } == [1, 12])
    #expect(JSONDialect.rooms([]) == #"{"type":"rooms","data":[]}"#)
  }

  /// The reference parser (the protocol's definition) reads the queries as the parser does.
  @Test func queriesParseAsTheReferenceParsesThem() {
    for text in [
      #"{"type":"who"}"#, #"{"type":"rooms"}"#, #"{"type":"who","data":7}"#, #"{"type":"Who"}"#,
      #"{"type":"rooms ","data":{}}"#, #"{"type":"w\u0068o"}"#,
    ] {
      #expect(ClientFrame.parse(text) == JSONReference.parse(text), "\(text)")
    }
    #expect(ClientFrame.parse(#"{"type":"w\u0068o"}"#) == .who)
    guard case .invalid(code: "unknown_type", _) = ClientFrame.parse(#"{"type":"Who"}"#) else {
      Issue.record("a query type is case-sensitive")
      return
    }
  }

  @Test(arguments: [
    ("alice", ClientFrame.plain("alice")),
    ("[1,2]", .plain("[1,2]")),
    ("{not json", .plain("{not json")),
    (#"{"type":"message","data":{"text":"hi"}}"#, .message(text: "hi", ref: nil)),
    (#"{"type":"message","data":"hi"}"#, .message(text: "hi", ref: nil)),
    (#"{"type":"message","data":{"text":"hi","ref":"a"}}"#, .message(text: "hi", ref: "\"a\"")),
    (#"{"type":"message","data":{"text":"hi","ref":42}}"#, .message(text: "hi", ref: "42")),
    (
      #"{"type":"join","data":{"name":"bob","room":"dev","since":0}}"#,
      .join(name: "bob", room: "dev", since: 0)
    ),
    (#"{"type":"join","data":{"since":12}}"#, .join(name: nil, room: nil, since: 12)),
    (#"{"type":"join"}"#, .join(name: nil, room: nil, since: nil)),
    (#"{"type":"who"}"#, .who),
    (#"{"type":"rooms"}"#, .rooms),
    (#" {"data":{"room":"dev"},"type":"who"}"#, .who),
    (#"{"type":"rooms","data":[1,"x",null],"extra":true}"#, .rooms),
    (#"{"type":"rooms","type":"who"}"#, .who),
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

  /// Every text a client can send parses to a frame that keeps its promise: plain text is
  /// the text itself; a message or join written back as JSON parses to the same frame; an
  /// object the protocol cannot use is `invalid` with a documented code, and the server's
  /// error frame for it is valid JSON carrying that code. Leading whitespace before an
  /// object changes nothing. 4,000 inputs from a fixed seed, so a failure replays.
  @Test func randomInputsParseToFramesThatRoundTrip() throws {
    var rng = SeededGenerator(seed: 99)
    var kinds: [String: Int] = [:]
    for round in 0..<4000 {
      let text = RandomClientFrame.text(&rng)
      let maxLength = round % 10 == 0 ? Int(rng.next() % 80) : 1 << 20
      let frame = ClientFrame.parse(text, maxLength: maxLength)
      let isObject =
        (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]))
        is [String: Any]
      let startsAnObject = text.utf8.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "{")
      switch frame {
      case .plain(let plain):
        kinds["plain", default: 0] += 1
        #expect(plain == text)
        #expect(!isObject, "\(text.debugDescription) is an object")
      case .invalid(let code, let message):
        kinds["invalid \(code)", default: 0] += 1
        #expect(["too_large", "invalid_type", "invalid_data", "unknown_type"].contains(code), "\(code)")
        #expect(!message.isEmpty)
        if code == "too_large" {
          #expect(startsAnObject && text.utf8.count > maxLength, "\(text.debugDescription)")
        } else {
          #expect(isObject && text.utf8.count <= maxLength, "\(text.debugDescription)")
        }
        let answer = try object(JSONDialect.error(code: code, message: message))
        #expect(answer["type"] as? String == "error")
        #expect((answer["data"] as? [String: Any])?["code"] as? String == code)
        #expect((answer["data"] as? [String: Any])?["message"] as? String == message)
      case .message(_, let ref), .action(_, let ref):
        kinds["message", default: 0] += 1
        #expect(isObject)
        let written = try #require(Self.json(frame))
        #expect(ClientFrame.parse(written) == frame, "\(text.debugDescription) → \(written)")
        if let ref { _ = try object(JSONDialect.ack(ref: ref, id: 1)) }  // the ack is valid JSON
      case .who, .rooms, .history, .refresh, .features, .typing:
        #expect(isObject)
        let written = try #require(Self.json(frame))
        #expect(ClientFrame.parse(written) == frame, "\(text.debugDescription) → \(written)")
      case .join:
        kinds["join", default: 0] += 1
        #expect(isObject)
        let written = try #require(Self.json(frame))
        #expect(ClientFrame.parse(written) == frame, "\(text.debugDescription) → \(written)")
      }
      if isObject && maxLength > text.utf8.count + 4 {
        #expect(ClientFrame.parse(" \n\t" + text, maxLength: maxLength) == frame)
      }
    }
    // The generator reaches every kind of frame, often (else this test would check little).
    for kind in [
      "plain", "message", "join", "invalid too_large", "invalid invalid_type", "invalid invalid_data",
      "invalid unknown_type",
    ] {
      #expect(kinds[kind, default: 0] >= 40, "\(kind): \(kinds)")
    }
  }

  /// The JSON a client would send for `frame` (`nil` for plain and invalid frames).
  private static func json(_ frame: ClientFrame) -> String? {
    switch frame {
    case .message(let text, let ref):
      var data = #"{"text":"# + JSONDialect.quote(text)
      if let ref { data += #","ref":"# + ref }
      return #"{"type":"message","data":"# + data + "}}"
    case .action(let text, let ref):
      var data = #"{"text":"# + JSONDialect.quote(text) + #","action":true"#
      if let ref { data += #","ref":"# + ref }
      return #"{"type":"message","data":"# + data + "}}"
    case .join(let name, let room, let since, let epoch):
      var fields: [String] = []
      if let name { fields.append(#""name":"# + JSONDialect.quote(name)) }
      if let room { fields.append(#""room":"# + JSONDialect.quote(room)) }
      if let since { fields.append(#""since":\#(since)"#) }
      if let epoch { fields.append(#""epoch":"# + JSONDialect.quote(epoch)) }
      return #"{"type":"join","data":{"# + fields.joined(separator: ",") + "}}"
    case .history(let limit):
      return #"{"type":"history","data":{"limit":\#(limit)}}"#
    case .who:
      return #"{"type":"who"}"#
    case .rooms:
      return #"{"type":"rooms"}"#
    case .refresh(let token):
      return JSONDialect.refresh(token: token)
    case .features(let names):
      return #"{"type":"features","data":["# + names.map(JSONDialect.quote).joined(separator: ",") + "]}"
    case .typing(let active):
      return #"{"type":"typing","data":{"active":\#(active)}}"#
    case .plain, .invalid:
      return nil
    }
  }
}
