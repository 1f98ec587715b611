/// SplitMix64: a tiny deterministic generator so randomized tests replay exactly.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

extension Array where Element == UInt8 {
  /// Cuts the bytes into consecutive chunks of random sizes (1...maxChunk).
  func randomSplits(maxChunk: Int, using generator: inout SeededGenerator) -> [[UInt8]] {
    var chunks: [[UInt8]] = []
    var index = 0
    while index < count {
      let size = Int.random(in: 1...maxChunk, using: &generator)
      chunks.append(Array(self[index..<Swift.min(index + size, count)]))
      index += size
    }
    return chunks
  }
}
