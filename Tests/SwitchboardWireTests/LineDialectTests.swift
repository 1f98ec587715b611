import SwitchboardTestSupport
import Testing

@testable import SwitchboardWire

/// A message's line written straight into bytes (what a server's line members share) is the
/// line `LineDialect.format` makes, with its line feed.
@Suite(.onTestThreads)
struct LineDialectTests {
  @Test(arguments: [false, true])
  func theWrittenLineIsTheFormattedOne(isAction: Bool) {
    let authors = ["a", "bob", "Zoë (2)", String(repeating: "n", count: 40)]
    let texts = ["", "hi", "héllo wörld 😀", String(repeating: "t", count: 5_000), "tab\tand \"quotes\""]
    for author in authors {
      for text in texts {
        let m = ChatMessage(
          id: 7, room: "lobby", time: 1_700_000_000_000, author: author, color: "teal", text: text, isAction: isAction)
        var bytes = [UInt8](repeating: 0, count: LineDialect.lineByteCount(m))
        bytes.withUnsafeMutableBytes { LineDialect.writeLine(m, into: $0) }
        let expected = Array((LineDialect.format(m) + "\n").utf8)
        #expect(bytes.count == expected.count && bytes == expected, "\(author): \(text.prefix(20))")
      }
    }
  }

  /// Every character the rule escapes, alone, doubled, next to backslashes and to the
  /// letters an escape is made of, at every position of a text: the line written byte by
  /// byte is the formatted one, `lineByteCount` is its exact size, nothing in it ends a
  /// line, and author and text read back exactly.
  @Test(arguments: [false, true])
  func aLineHoldsNoLineBreakAndReadsBackExactly(isAction: Bool) {
    let pieces = [
      "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}", "\u{1B}", "\u{0}", "\t", "\u{7F}", "\u{9F}",
      #"\"#, #"\\"#, "n", "u{", "u{85}", #"\u{85}"#, "é", "😀", "\u{2027}", "\u{A0}", #"C:\path"#, "\r\n",
    ]
    var texts: [String] = []
    for piece in pieces {
      for other in pieces { texts.append("a" + piece + other + "z") }
      texts.append(piece)
      texts.append(piece + #"\"#)
      texts.append(#"\"# + piece)
      texts.append(String(repeating: "x", count: 13) + piece + String(repeating: "y", count: 9))
    }
    for author in ["bob", #"a\b"#, "z\u{85}"] {
      for text in texts {
        let m = ChatMessage(id: 3, room: "lobby", time: 1, author: author, color: "teal", text: text, isAction: isAction)
        var bytes = [UInt8](repeating: 0, count: LineDialect.lineByteCount(m))
        bytes.withUnsafeMutableBytes { LineDialect.writeLine(m, into: $0) }
        let formatted = LineDialect.format(m)
        #expect(bytes == Array((formatted + "\n").utf8), "\(text.debugDescription)")
        // The one-pass writer: the same bytes when nothing needed an escape, else `false`.
        var plain = [UInt8](repeating: 0, count: LineDialect.plainLineByteCount(m))
        let isPlain = plain.withUnsafeMutableBytes { LineDialect.writePlainLine(m, into: $0) }
        #expect(isPlain == (plain.count == bytes.count) && (!isPlain || plain == bytes), "\(text.debugDescription)")
        #expect(!formatted.unicodeScalars.contains { LineEscape.isEscaped($0) }, "\(text.debugDescription)")
        let expected = isAction ? "* " + LineEscape.escape(author) + " " : LineEscape.escape(author) + ": "
        #expect(formatted.hasPrefix(expected))
        #expect(LineEscape.unescape(formatted.dropFirst(expected.count)) == text, "\(text.debugDescription)")
      }
    }
  }

  @Test(arguments: [
    ("a\nb", #"a\nb"#), ("a\rb", #"a\rb"#), ("\u{0B}\u{0C}", #"\v\f"#), ("\u{85}", #"\u{85}"#),
    ("\u{2028}\u{2029}", #"\u{2028}\u{2029}"#), ("\u{1B}[2K", #"\u{1b}[2K"#), ("\u{0}", #"\u{0}"#),
    ("tab\there", "tab\there"), (#"C:\path"#, #"C:\path"#), (#"C:\new"#, #"C:\\new"#), (#"\u{41}"#, #"\\u{41}"#),
    (#"\u41"#, #"\u41"#), (#"end\"#, #"end\"#), ("\\\n", #"\\\n"#), (#"\\"#, #"\\\"#), ("é\u{9F}", #"é\u{9f}"#),
  ])
  func escapesAreTheDocumentedOnes(text: String, escaped: String) {
    #expect(LineEscape.escape(text) == escaped)
    #expect(LineEscape.unescape(escaped) == text)
  }

  /// Random texts over the characters that matter, from a seeded generator: the escape
  /// holds none of the escaped characters and reads back; its byte count is the counted one.
  @Test func randomTextsRoundTrip() {
    var rng = SeededGenerator(seed: 27)
    let alphabet = [
      "a", #"\"#, "n", "r", "u", "{", "}", "8", "5", "2", "0", "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}",
      "\u{2029}", "\u{1B}", "\t", "é", "😀", " ", ":", "*", "\u{80}", "\u{2026}",
    ]
    for _ in 0..<5_000 {
      let text = (0..<Int.random(in: 0...24, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }.joined()
      let escaped = LineEscape.escape(text)
      #expect(!escaped.unicodeScalars.contains { LineEscape.isEscaped($0) }, "\(text.debugDescription)")
      #expect(LineEscape.unescape(escaped) == text, "\(text.debugDescription)")
      var copy = text
      #expect(copy.withUTF8 { LineEscape.escapedCount($0) } == escaped.utf8.count)
    }
  }

  @Test(arguments: [
    ("*bob", NameRefusal.marker("*")), ("! x", .marker("!")), ("[3] ceo", .marker("[")), ("ceo: wire", .colonSpace),
    ("server", .noticeWord("server")), ("Server is going away", .noticeWord("server")), ("YOU", .noticeWord("you")),
    ("rooms:", .noticeWord("rooms:")), ("in", .noticeWord("in")), ("Server received", .echoPrefix),
    // The UDP proof's lines and the history slice's continuation line.
    ("send /ok 00 to chat", .noticeWord("send")), ("ok, you are in lobby", .noticeWord("ok,")),
    ("/ok x", .noticeWord("/ok")), ("More history", .noticeWord("more")),
    // Judged as a reader sees them: without format characters and combining marks.
    ("server\u{200B} x", .noticeWord("server")), ("\u{200B}*bob", .marker("*")), ("ceo:\u{2060} wire", .colonSpace),
    ("server \u{356}x", .noticeWord("server")), ("\u{301}", .empty),
  ])
  func namesThatWouldMakeALineReadAsAnotherAreRefused(name: String, refusal: NameRefusal) {
    #expect(LineDialect.nameRefusal(name) == refusal)
  }

  @Test(arguments: ["bob", "Client 3", "alice (2)", "serverless", "ceo:wire", #"C:\x"#, "a*", "inés", "Zoë"])
  func ordinaryNamesAreAdmitted(name: String) {
    #expect(LineDialect.nameRefusal(name) == nil)
  }
}
