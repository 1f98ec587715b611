import SwitchboardAuth
import SwitchboardTestSupport
import Testing

/// Strict unpadded base64url: RFC 4648 §10 vectors both ways, and every non-canonical form refused.
@Suite(.onTestThreads) struct Base64URLTests {
  static let vectors: [(String, String)] = [
    ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
    ("foobar", "Zm9vYmFy"),
  ]

  @Test(arguments: vectors.indices)
  func rfc4648VectorsEncodeAndDecode(_ index: Int) {
    let (plain, encoded) = Self.vectors[index]
    #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
    #expect(Base64URL.decode(encoded) == Array(plain.utf8))
  }

  @Test func urlAlphabetIsUsedForTheLastTwoValues() {
    #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
    #expect(Base64URL.decode("+/8") == nil)
  }

  @Test(arguments: ["Zg==", "Zm8=", "Zm 9v", "Zm9v\n", "Z", "Zm9vY", "Zh", "Zm9", "Zm+v", "é"])
  func nonCanonicalOrForeignTextIsRefused(_ text: String) {
    // Padding, whitespace, a 4n+1 length, non-zero trailing bits (Zh, Zm9), standard alphabet.
    #expect(Base64URL.decode(text) == nil)
  }

  @Test func randomBytesRoundTrip() {
    var random = SeededGenerator(seed: 77)
    for count in 0..<200 {
      let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
      let text = Base64URL.encode(bytes)
      #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
      #expect(Base64URL.decode(text) == bytes, "\(count) bytes")
    }
  }
}
