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
    #expect(HashChecks.hex(sha.finalize()) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
  }

  /// RFC 6455 §1.3: the key `dGhlIHNhbXBsZSBub25jZQ==` and the GUID hash to these bytes
  /// (whose base64 is `s3pPLMBiTxaQ9kYGzzhZRbK+xOo=`).
  @Test func rfc6455HandshakeExample() {
    let input = Array("dGhlIHNhbXBsZSBub25jZQ==258EAFA5-E914-47DA-95CA-C5AB0DC85B11".utf8)
    #expect(HashChecks.hex(SHA1.hash(input)) == "b37a4f2cc0624f1690f64606cf385945b2bec4ea")
  }

  /// Fed in random pieces, the digest is the one of the whole: no block boundary is special.
  @Test func piecesGiveTheDigestOfTheWhole() {
    HashChecks.piecesGiveTheDigestOfTheWhole(seed: 0x5EA1, whole: { SHA1.hash($0) }) { pieces in
      var sha = SHA1()
      for piece in pieces { sha.update(piece) }
      return sha.finalize()
    }
  }

  #if canImport(COpenSSL)
    /// Every length up to 200 (the padding's edges at 55/56 and 119/120 among them) and a
    /// few longer ones, against OpenSSL's SHA1.
    @Test func matchesOpenSSLOnEveryLengthTo200() {
      HashChecks.matchesReference(seed: 7, ours: { SHA1.hash($0) }) { bytes in
        var digest = [UInt8](repeating: 0, count: 20)
        bytes.withUnsafeBufferPointer { input in
          digest.withUnsafeMutableBufferPointer { output in
            _ = COpenSSL.SHA1(input.baseAddress, input.count, output.baseAddress)
          }
        }
        return digest
      }
    }
  #endif
}
