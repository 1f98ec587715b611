import SwitchboardTestSupport
import SwitchboardHTTP
import Testing

/// The package's one percent-decoder, `removingURLPercentEncoding`.
@Suite(.onTestThreads) struct PercentDecodingTests {
  static let vectors: [(String, String)] = [
    ("", ""),
    ("lobby", "lobby"),
    ("%41", "A"),
    ("%4a%4A", "JJ"),
    ("a%20b", "a b"),
    ("%2F%2f", "//"),
    // Malformed escapes are kept as they are.
    ("%", "%"),
    ("abc%", "abc%"),
    ("%4", "%4"),
    ("%zz", "%zz"),
    ("%4z", "%4z"),
    ("%%41", "%A"),
    ("%+f", "%+f"),
    ("%-0", "%-0"),
    // In a path `+` is itself.
    ("a+b", "a+b"),
    // UTF-8, escaped and raw.
    ("caf%C3%A9", "café"),
    ("%E2%82%AC", "€"),
    ("%F0%9F%98%80", "😀"),
    ("é%20ü", "é ü"),
    // Decoded bytes that are not UTF-8 become U+FFFD.
    ("%FF", "\u{FFFD}"),
    ("a%C3", "a\u{FFFD}"),
    ("%C3%28", "\u{FFFD}("),
  ]

  @Test(arguments: vectors)
  func decodes(input: String, expected: String) {
    #expect(input.removingURLPercentEncoding() == expected)
  }

  @Test func plusIsASpaceOnlyInFormEncoding() {
    #expect("a+b%2Bc".removingURLPercentEncoding(plusAsSpace: true) == "a b+c")
    #expect("a+b%2Bc".removingURLPercentEncoding() == "a+b+c")
    #expect("+%".removingURLPercentEncoding(plusAsSpace: true) == " %")
  }

  @Test func anEncodedSurrogateIsReplacedNotKept() {
    let decoded = "%ED%A0%80".removingURLPercentEncoding()
    #expect(!decoded.isEmpty)
    #expect(decoded.allSatisfy { $0 == "\u{FFFD}" })
  }

  @Test func decodesASubstringInPlace() {
    let path = "/rooms/caf%C3%A9?x"
    let name = path.dropFirst("/rooms/".count).prefix { $0 != "?" }
    #expect(name.removingURLPercentEncoding() == "café")
  }

  @Test func queryParametersUseIt() {
    let head = HTTPRequestHead(method: "GET", target: "/?name=J%C3%BCrgen+K&bad=%zz&%41=1")
    #expect(head.query == ["name": "Jürgen K", "bad": "%zz", "A": "1"])
  }
}
