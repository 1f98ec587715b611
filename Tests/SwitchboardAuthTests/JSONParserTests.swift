import SwitchboardTestSupport
import Testing

@testable import SwitchboardAuth

/// The token JSON parser: what RFC 8259 allows parses to the right value, what it does not
/// (and duplicate names, and nesting past the limit) is refused.
@Suite(.onTestThreads) struct JSONParserTests {
  func parse(_ text: String, depth: Int = 16) throws(JSONParser.Failure) -> JSONValue {
    try JSONParser.parse(Array(text.utf8), maxDepth: depth)
  }

  @Test func valuesOfEveryKindParse() throws {
    let value = try parse(
      #" {"a": [1, -2.5e1, 0, true, false, null], "b": {"c": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}} "#)
    #expect(
      value
        == .object([
          "a": .array([.number(1), .number(-25), .number(0), .bool(true), .bool(false), .null]),
          "b": .object(["c": .string("x\"\\/\u{08}\u{0C}\n\r\t\u{e9}\u{1F600}")]),
        ]))
  }

  @Test func rawUTF8InStringsIsKept() throws {
    #expect(try parse("\"ümlaut 日本 😀\"") == .string("ümlaut 日本 😀"))
  }

  @Test(arguments: [
    "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "01", "-", "1.", ".5", "1e", "+1", "NaN",
    "Infinity", "tru", "nul", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"",
    "\"\\ud800\\u0041\"",
    "\"a\u{01}b\"", "{} {}", "1 2", "{\"a\":1,\"a\":2}", "1e400", "[\"\\",
  ])
  func malformedJSONIsRefused(_ text: String) {
    #expect(throws: JSONParser.Failure.self, "\(text)") { try parse(text) }
  }

  @Test(
    arguments: [
      [0x22, 0xC0, 0x80, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
      [0x22, 0xE2, 0x82, 0x22], [0x22, 0xFF, 0x22],
    ] as [[UInt8]])
  func invalidUTF8IsRefused(_ bytes: [UInt8]) {
    // Overlong, surrogate, above U+10FFFF, truncated, never-valid byte.
    #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(bytes, maxDepth: 4) }
  }

  @Test func nestingIsLimited() throws {
    let deep = String(repeating: "[", count: 5) + String(repeating: "]", count: 5)
    #expect(try parse(deep, depth: 5) != .null)
    #expect(throws: JSONParser.Failure.tooDeep) { try parse(deep, depth: 4) }
    // Deep enough to overflow a recursive parser's stack without the limit.
    let hostile = String(repeating: "[", count: 100_000)
    #expect(throws: JSONParser.Failure.tooDeep) { try parse(hostile) }
  }

  @Test func encodedValuesParseBackToThemselves() throws {
    let value = JSONValue.object([
      "sub": .string("ä\"\n\u{01}"), "exp": .number(1_767_225_600), "f": .number(0.5), "n": .null,
      "rooms": .array([.string("a"), .bool(true)]),
    ])
    #expect(try parse(value.encoded()) == value)
    #expect(JSONValue.number(1_767_225_600).encoded() == "1767225600")
  }
}
