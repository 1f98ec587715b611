import SwitchboardTestSupport
import Testing

@testable import SwitchboardChat

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
}
