import SwitchboardCrypto
import SwitchboardTestSupport
import Testing

#if canImport(COpenSSL)
  import COpenSSL
#endif

/// SHA-256 against the FIPS 180 / NIST example vectors, every way of cutting the input, and
/// (where OpenSSL is linked) OpenSSL's own SHA256 on many lengths.
@Suite(.onTestThreads) struct SHA256Tests {
  static let vectors: [(input: [UInt8], digest: String)] = [
    ([], "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    (Array("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    (
      Array(
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
          + "mnopqrstnopqrstu").utf8),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
    ),
    (
      Array("The quick brown fox jumps over the lazy dog".utf8),
      "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592"
    ),
  ]

  @Test(arguments: vectors.indices)
  func nistVectors(_ index: Int) {
    let (input, digest) = Self.vectors[index]
    #expect(HashChecks.hex(SHA256.hash(input)) == digest)
  }

  @Test func aMillionAs() {
    var sha = SHA256()
    let thousand = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
    for _ in 0..<1000 { sha.update(thousand) }
    #expect(HashChecks.hex(sha.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  /// Fed in random pieces, the digest is the one of the whole: no block boundary is special.
  @Test func piecesGiveTheDigestOfTheWhole() {
    HashChecks.piecesGiveTheDigestOfTheWhole(seed: 0x5EA2, whole: { SHA256.hash($0) }) { pieces in
      var sha = SHA256()
      for piece in pieces { sha.update(piece) }
      return sha.finalize()
    }
  }

  #if canImport(COpenSSL)
    /// Every length up to 200 (the padding's edges at 55/56 and 119/120 among them) and a
    /// few longer ones, against OpenSSL's SHA256.
    @Test func matchesOpenSSLOnEveryLengthTo200() {
      HashChecks.matchesReference(seed: 11, ours: { SHA256.hash($0) }) { bytes in
        var digest = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBufferPointer { input in
          digest.withUnsafeMutableBufferPointer { output in
            _ = COpenSSL.SHA256(input.baseAddress, input.count, output.baseAddress)
          }
        }
        return digest
      }
    }
  #endif
}
