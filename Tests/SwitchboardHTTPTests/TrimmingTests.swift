import SwitchboardTestSupport
import SwitchboardHTTP
import Testing

/// The package's one trimmer, `trimmingSpacesAndTabs`, for text and for bytes.
@Suite(.onTestThreads) struct TrimmingTests {
  static let vectors: [(String, String)] = [
    ("", ""),
    ("a", "a"),
    ("  a b \t", "a b"),
    ("\t\t ", ""),
    (" \r\na\n ", "\r\na\n"),  // only spaces and tabs go
    ("\u{00A0}a\u{00A0}", "\u{00A0}a\u{00A0}"),
    (" é ", "é"),
  ]

  @Test(arguments: vectors)
  func trimsText(input: String, expected: String) {
    #expect(input.trimmingSpacesAndTabs() == expected)
  }

  @Test(arguments: vectors)
  func trimsBytesTheSameWay(input: String, expected: String) {
    let bytes = Array(input.utf8)
    #expect(Array(bytes[...].trimmingSpacesAndTabs()) == Array(expected.utf8))
  }

  @Test func keepsTheIndicesOfASlice() {
    let bytes = Array("x:  value \t".utf8)
    let value = bytes[2...].trimmingSpacesAndTabs()
    #expect(value.startIndex == 4)
    #expect(String(decoding: value, as: UTF8.self) == "value")
    let text = "[ in brackets ]"
    #expect(text.dropFirst().dropLast().trimmingSpacesAndTabs() == "in brackets")
  }
}
