import SwitchboardWire
import Testing

/// The room-name rule: 1–64 letters (L*, each with up to two marks), decimal digits (Nd), `-`,
/// `_`, `.`, in NFC.
@Suite(.onTestThreads) struct RoomNameTests {
  @Test(arguments: [
    ("lobby", "lobby"), ("Key", "Key"), ("\u{212A}ey", "Key"),  // KELVIN SIGN is K
    ("cafe\u{301}", "caf\u{E9}"),  // e + combining acute composes to é
    ("\u{1100}\u{1161}\u{11A8}", "\u{AC01}"),  // Hangul jamo compose to one syllable
    ("\u{3C0}-\u{5E9}_\u{65E5}.9", "\u{3C0}-\u{5E9}_\u{65E5}.9"), ("\u{661}\u{662}", "\u{661}\u{662}"),
    ("..", ".."),
    // Scripts written with marks: a letter carries up to two after composition.
    ("\u{939}\u{93F}\u{928}\u{94D}\u{926}\u{940}", "\u{939}\u{93F}\u{928}\u{94D}\u{926}\u{940}"),  // Hindi
    ("\u{E19}\u{E49}\u{E33}", "\u{E19}\u{E49}\u{E33}"),  // Thai: a tone mark, then a vowel
    ("a\u{301}\u{301}", "\u{E1}\u{301}"),  // á and one mark more
  ])
  func aNameIsKeptInItsCanonicalComposedSpelling(raw: String, expected: String) throws {
    let name = try #require(RoomName.validate(raw))
    #expect(Array(name.unicodeScalars) == Array(expected.unicodeScalars))
  }

  @Test(arguments: [
    "", "a b", "a/b",
    "a\u{301}\u{302}\u{303}\u{304}",  // three marks left on one letter after composition
    "\u{301}a", "1\u{301}", "-\u{94D}",  // a mark on no letter
    "x\u{20DD}",  // enclosing mark
    "half\u{BD}",  // ½ (No)
    "n\u{2460}",  // ① (No)
    "\u{2167}",  // Ⅷ (Nl)
    "\u{1F600}", "a\u{200B}b", "tab\t", "a*b", "\u{FF01}",
  ])
  func marksOtherNumbersSymbolsAndSpacesAreRefused(raw: String) {
    #expect(RoomName.validate(raw) == nil)
  }

  @Test func theLengthIsCountedInScalarsAfterComposition() {
    #expect(RoomName.validate(String(repeating: "\u{E9}", count: 64)) != nil)
    #expect(RoomName.validate(String(repeating: "\u{E9}", count: 65)) == nil)
    // 64 decomposed é are 128 scalars raw but 64 once composed.
    #expect(RoomName.validate(String(repeating: "e\u{301}", count: 64)) != nil)
    #expect(RoomName.validate(String(repeating: "r", count: 5000)) == nil)
  }
}
