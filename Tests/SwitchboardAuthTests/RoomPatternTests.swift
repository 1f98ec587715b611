import SwitchboardAuth
import SwitchboardTestSupport
import Testing

/// The `rooms` pattern rule: room-name characters and `*`, whole-name matching.
@Suite(.onTestThreads) struct RoomPatternTests {
  static let cases: [(pattern: String, room: String, matches: Bool)] = [
    ("lobby", "lobby", true), ("lobby", "Lobby", false), ("lobby", "lobby2", false),
    ("team-*", "team-a", true), ("team-*", "team-", true), ("team-*", "team", false),
    ("team-*", "my-team-a", false),
    ("*-ops", "red-ops", true), ("*-ops", "red-ops-x", false), ("*", "anything", true),
    ("a*b*c", "abc", true), ("a*b*c", "aXbYc", true), ("a*b*c", "aXbY", false), ("a*b*c", "acb", false),
    ("**", "x", true), ("a*a*a*a*b", String(repeating: "a", count: 64), false), ("ré*", "réunion", true),
  ]

  @Test(arguments: cases.indices)
  func patternsMatchWholeRoomNames(_ index: Int) throws {
    let c = Self.cases[index]
    let pattern = try #require(RoomPattern(c.pattern))
    #expect(pattern.matches(c.room) == c.matches, "\(c.pattern) ~ \(c.room)")
  }

  @Test(arguments: ["", "a b", "team/*", "a?", "[ab]", "x\n", String(repeating: "a", count: 65)])
  func invalidPatternsAreRefused(_ text: String) {
    #expect(RoomPattern(text) == nil)
  }

  @Test func aPatternIsComparedInTheSpellingRoomNamesAreKeptIn() throws {
    // Rooms reach the check in NFC (`RoomName.validate`); a token may spell them otherwise.
    let kelvin = try #require(RoomPattern("\u{212A}ey-*"))
    #expect(kelvin.matches("Key-1"))
    #expect(kelvin.text == "Key-*")
    #expect(try #require(RoomPattern("re\u{301}*")).matches("r\u{E9}union"))
    #expect(RoomPattern("half\u{BD}*") == nil)
  }

  @Test func anyOfSeveralPatternsAllows() throws {
    let patterns = ["team-*", "lobby"].compactMap(RoomPattern.init)
    #expect(RoomPattern.any(patterns, match: "lobby"))
    #expect(RoomPattern.any(patterns, match: "team-x"))
    #expect(!RoomPattern.any(patterns, match: "ops"))
    #expect(!RoomPattern.any([], match: "lobby"))
  }
}
