import SwitchboardTestSupport
import Testing

@testable import SwitchboardWire

/// A message keeps its strings and its text's UTF-8 in one immutable box: it must still
/// behave as a plain value (copies independent, equality and hashing by content), and the
/// text must come back byte for byte however it was made.
@Suite(.onTestThreads)
struct ChatMessageTests {
  static let texts: [String] = [
    "", "a", "hello world", "héllo wörld — κόσμε 😀", String(repeating: "x", count: 15),
    String(repeating: "y", count: 16), "nul \u{0} inside", String(repeating: "long text ", count: 10_000),
  ]

  static func message(_ text: String, id: UInt64 = 1) -> ChatMessage {
    ChatMessage(id: id, room: "lobby", time: 1_700_000_000_000, author: "alice", color: "teal", text: text)
  }

  @Test(arguments: texts)
  func theTextComesBackByteForByte(text: String) {
    let m = Self.message(text)
    #expect(m.text == text)
    #expect(m.textUTF8Count == text.utf8.count)
    #expect(m.withTextUTF8 { Array($0) } == Array(text.utf8))
    #expect(m.room == "lobby" && m.author == "alice" && m.color == "teal")
  }

  @Test(arguments: texts)
  func bytesAndStringsMakeTheSameMessage(text: String) {
    let fromBytes = Array(text.utf8).withUnsafeBytes {
      ChatMessage(
        id: 1, room: "lobby", time: 1_700_000_000_000, author: "alice", color: "teal", validatedUTF8: $0)
    }
    let fromString = Self.message(text)
    #expect(fromBytes == fromString)
    #expect(fromBytes.hashValue == fromString.hashValue)
  }

  @Test func aChangedCopyLeavesTheOriginalAsItWas() {
    let original = Self.message("first")
    var copy = original
    copy.text = "second"
    copy.author = "bob"
    copy.room = "elsewhere"
    copy.color = "red"
    copy.id = 2
    #expect(original.text == "first" && original.author == "alice" && original.room == "lobby")
    #expect(original.color == "teal" && original.id == 1)
    #expect(copy.text == "second" && copy.author == "bob" && copy.room == "elsewhere" && copy.color == "red")
    #expect(copy != original)
  }

  @Test func equalityIsByContent() {
    let a = Self.message("same")
    let b = Self.message("same")
    #expect(a == b && a.hashValue == b.hashValue)
    #expect(a != Self.message("other"))
    #expect(a != Self.message("same", id: 2))
    var action = a
    action.isAction = true
    #expect(action != a)
    // The same length and a different byte, and a prefix.
    #expect(Self.message("abcd") != Self.message("abce"))
    #expect(Self.message("abc") != Self.message("abcd"))
    #expect(Set([a, b, Self.message("other")]).count == 2)
  }

  /// What a reader found about the text and the hub about the strings (no byte a JSON
  /// string escapes) stays with the message while those stay as they are, goes with a
  /// change of them, and is no part of the message's value.
  @Test func theJSONEscapeFlagsFollowTheirStringsAndAreNotPartOfTheValue() {
    let flagged = Array("plain".utf8).withUnsafeBytes {
      ChatMessage(
        id: 1, room: "lobby", time: 1_700_000_000_000, author: "alice", color: "teal", validatedUTF8: $0,
        textNeedsNoJSONEscape: true, stringsNeedNoJSONEscape: true)
    }
    #expect(flagged.textNeedsNoJSONEscape && flagged.stringsNeedNoJSONEscape)
    #expect(flagged == Self.message("plain") && flagged.hashValue == Self.message("plain").hashValue)
    var copy = flagged
    copy.id = 2
    copy.isAction = true
    #expect(copy.textNeedsNoJSONEscape && copy.stringsNeedNoJSONEscape, "id and action leave them")
    for change in [\ChatMessage.room, \.author, \.color] {
      var changed = flagged
      changed[keyPath: change] = #"a "quoted" \ one"#
      #expect(changed.textNeedsNoJSONEscape && !changed.stringsNeedNoJSONEscape, "\(change)")
    }
    var text = flagged
    text.text = "\"quoted\""
    #expect(!text.textNeedsNoJSONEscape && text.stringsNeedNoJSONEscape)
    #expect(!Self.message("plain").textNeedsNoJSONEscape && !Self.message("plain").stringsNeedNoJSONEscape)
  }

  @Test func manyCopiesShareOneBoxAndOutliveTheOriginal() {
    var kept: [ChatMessage] = []
    do {
      let m = Self.message(String(repeating: "shared ", count: 100))
      for id in 1...100 {
        var copy = m
        copy.id = UInt64(id)
        kept.append(copy)
      }
    }
    #expect(kept.allSatisfy { $0.text == String(repeating: "shared ", count: 100) })
    #expect(kept.map(\.id) == Array(1...100))
  }
}
