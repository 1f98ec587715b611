import SwitchboardTestSupport
import Testing

@testable import SwitchboardWebSocket

@Suite(.onTestThreads)
struct UTF8ValidatorTests {
  static let valid: [String] = [
    "", "Hello", "κόσμε", "Hello-µ@ßöäüàá-UTF-8!!", "€", "𝄞 music", "\u{7F}", "\u{80}", "\u{7FF}", "\u{800}",
    "\u{FFFF}", "\u{10000}", "\u{10FFFF}", "\u{D7FF}", "\u{E000}", "\u{FFFD}",
    String(repeating: "abcdefgh", count: 20) + "é",
  ]

  @Test(arguments: valid)
  func acceptsValidUTF8(string: String) {
    let bytes = Array(string.utf8)
    #expect(UTF8Validator.isValid(bytes))
    // Split into two fragments at every position: valid so far, complete at the end.
    for cut in 0...bytes.count {
      var v = UTF8Validator()
      let first = v.validate(Array(bytes[..<cut]))
      let second = v.validate(Array(bytes[cut...]))
      #expect(first && second && v.isComplete)
    }
  }

  /// Invalid inputs and the index of the first byte at which a validator must fail.
  static let invalid: [(String, String, Int)] = [
    ("lone continuation", "80", 0),
    ("overlong slash 2 bytes", "c0 af", 0),
    ("overlong C1", "c1 bf", 0),
    ("overlong 3 bytes", "e0 80 af", 1),
    ("overlong 4 bytes", "f0 80 80 af", 1),
    ("overlong max 3", "e0 9f bf", 1),
    ("surrogate D800", "ed a0 80", 1),
    ("surrogate DFFF", "ed bf bf", 1),
    ("above U+10FFFF", "f4 90 80 80", 1),
    ("F5 lead", "f5 80 80 80", 0),
    ("FF", "ff", 0),
    ("FE", "fe", 0),
    ("ascii then bad", "48 65 6c 6c 6f ff", 5),
    ("truncated then ascii", "ce 41", 1),
    ("autobahn 6.4.1", "ce ba e1 bd b9 cf 83 ce bc ce b5 f4 90 80 80 65 64 69 74 65 64", 12),
    ("autobahn 6.4.2", "ce ba e1 bd b9 cf 83 ce bc ce b5 f4 90 80 80", 12),
    ("long ascii then bad", String(repeating: "41 ", count: 37) + "c0", 37),
  ]

  @Test(arguments: 0..<invalid.count)
  func failsFastOnInvalidUTF8(index: Int) {
    let (name, h, failAt) = Self.invalid[index]
    let bytes = hex(h)
    #expect(!UTF8Validator.isValid(bytes), "\(name)")
    // Fed one byte at a time: valid up to failAt, invalid exactly at failAt.
    var v = UTF8Validator()
    for (i, byte) in bytes.enumerated() {
      let ok = v.validate([byte])
      #expect(ok == (i < failAt), "\(name) byte \(i)")
      if !ok { break }
    }
    #expect(!v.isValid)
    // Split in two at every position: the failure is reported in the fragment that
    // contains the bad byte.
    for cut in 0...bytes.count {
      var w = UTF8Validator()
      let first = w.validate(Array(bytes[..<cut]))
      #expect(first == (cut <= failAt), "\(name) cut \(cut)")
      let second = w.validate(Array(bytes[cut...]))
      #expect(!second)
    }
  }

  @Test(arguments: ["ce", "e2 82", "f0 9d 84", "41 e2"])
  func truncatedSequenceIsValidSoFarButIncomplete(h: String) {
    var v = UTF8Validator()
    let ok = v.validate(hex(h))
    #expect(ok && v.isValid)
    #expect(!v.isComplete)
    #expect(!UTF8Validator.isValid(hex(h)))
  }

  @Test func agreesWithStandardLibraryOnRandomInput() {
    var rng = SeededGenerator(seed: 7)
    for _ in 0..<3000 {
      let count = Int.random(in: 0...24, using: &rng)
      let bytes = (0..<count).map { _ in
        // Bias towards interesting bytes.
        [UInt8.random(in: 0...0x7F, using: &rng), UInt8.random(in: 0x80...0xFF, using: &rng)][
          Int.random(in: 0...1, using: &rng)]
      }
      let expected = String(validating: bytes, as: UTF8.self) != nil
      #expect(UTF8Validator.isValid(bytes) == expected, "\(bytes)")
    }
  }

  @Test func resetStartsOver() {
    var v = UTF8Validator()
    let bad = v.validate([0xFF])
    #expect(!bad)
    v.reset()
    let ok = v.validate(Array("ok".utf8))
    #expect(ok)
    #expect(v.isComplete)
  }
}
