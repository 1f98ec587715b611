import SwitchboardCrypto
import SwitchboardTestSupport
import Testing

#if canImport(COpenSSL)
  import COpenSSL
#endif

/// SHA-1 against the RFC 3174 / FIPS 180 vectors, RFC 6455's handshake example, every way of
/// cutting the input, and (where OpenSSL is linked) OpenSSL's own SHA1 on many lengths.
@Suite(.onTestThreads) struct SHA1Tests {
  static let vectors: [(input: [UInt8], digest: String)] = [
    ([], "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
    (Array("abc".utf8), "a9993e364706816aba3e25717850c26c9cd0d89d"),
    (
      Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
      "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
    ),
    (
      Array(
        String(repeating: "0123456701234567012345670123456701234567012345670123456701234567", count: 10).utf8),
      "dea356a2cddd90c7a7ecedc5ebb563934f460452"
    ),
    (Array("The quick brown fox jumps over the lazy dog".utf8), "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
  ]

  @Test(arguments: vectors.indices)
  func rfc3174Vectors(_ index: Int) {
    let (input, digest) = Self.vectors[index]
    #expect(SHA1.hexDigest(input) == digest)
  }

  @Test func aMillionAs() {
    var sha = SHA1()
    let thousand = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
    for _ in 0..<1000 { sha.update(thousand) }
    #expect(hex(sha.finalize()) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
  }

  /// RFC 6455 §1.3: the key `dGhlIHNhbXBsZSBub25jZQ==` and the GUID hash to these bytes
  /// (whose base64 is `s3pPLMBiTxaQ9kYGzzhZRbK+xOo=`).
  @Test func rfc6455HandshakeExample() {
    let input = Array("dGhlIHNhbXBsZSBub25jZQ==258EAFA5-E914-47DA-95CA-C5AB0DC85B11".utf8)
    #expect(hex(SHA1.hash(input)) == "b37a4f2cc0624f1690f64606cf385945b2bec4ea")
  }

  /// Fed in random pieces, the digest is the one of the whole: no block boundary is special.
  @Test func piecesGiveTheDigestOfTheWhole() {
    var generator = SeededGenerator(seed: 0x5EA1)
    for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000] {
      let bytes = pattern(count: length, seed: UInt64(length))
      var sha = SHA1()
      for chunk in bytes.randomSplits(maxChunk: 70, using: &generator) { sha.update(chunk) }
      #expect(sha.finalize() == SHA1.hash(bytes), "length \(length)")
    }
  }

  #if canImport(COpenSSL)
    /// Every length up to 200 (the padding's edges at 55/56 and 119/120 among them) and a
    /// few longer ones, against OpenSSL's SHA1.
    @Test func matchesOpenSSLOnEveryLengthTo200() {
      for length in Array(0...200) + [255, 256, 1023, 4096, 65_537] {
        let bytes = pattern(count: length, seed: UInt64(length) &+ 7)
        var expected = [UInt8](repeating: 0, count: 20)
        bytes.withUnsafeBufferPointer { input in
          expected.withUnsafeMutableBufferPointer { output in
            _ = COpenSSL.SHA1(input.baseAddress, input.count, output.baseAddress)
          }
        }
        #expect(SHA1.hash(bytes) == expected, "length \(length)")
      }
    }
  #endif

  private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
  }
}
