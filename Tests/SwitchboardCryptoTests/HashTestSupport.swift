import SwitchboardTestSupport
import Testing

/// The checks SHA-1 and SHA-256 share, given the hash's one-shot and piecewise forms.
enum HashChecks {
  /// The lengths at the padding's edges (55/56, 119/120 bytes) and around the block size.
  static let edgeLengths = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000]
  /// Every length to 200 and a few longer ones: for comparing with another implementation.
  static let manyLengths = Array(0...200) + [255, 256, 1023, 4096, 65_537]

  /// Fed in random pieces, the digest is the one of the whole: no block boundary is special.
  static func piecesGiveTheDigestOfTheWhole(
    seed: UInt64, whole: ([UInt8]) -> [UInt8], pieces: ([[UInt8]]) -> [UInt8]
  ) {
    var generator = SeededGenerator(seed: seed)
    for length in edgeLengths {
      let bytes = pattern(count: length, seed: UInt64(length))
      #expect(pieces(bytes.randomSplits(maxChunk: 70, using: &generator)) == whole(bytes), "length \(length)")
    }
  }

  /// Every one of ``manyLengths`` hashes as `reference` (another implementation) hashes it.
  static func matchesReference(
    seed: UInt64, ours: ([UInt8]) -> [UInt8], reference: ([UInt8]) -> [UInt8]
  ) {
    for length in manyLengths {
      let bytes = pattern(count: length, seed: UInt64(length) &+ seed)
      #expect(ours(bytes) == reference(bytes), "length \(length)")
    }
  }

  /// Lower-case hex, as digests are written in the standards.
  static func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
  }
}
