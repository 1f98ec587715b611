// Bytes for tests: recognisable payloads, cheap comparison, random cuts.

/// Position-dependent pseudo-random bytes: reordered, lost or duplicated chunks show.
public func pattern(count: Int, seed: UInt64 = 0) -> [UInt8] {
  var bytes = [UInt8](repeating: 0, count: count)
  var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
  for i in 0..<count {
    state ^= state << 13
    state ^= state >> 7
    state ^= state << 17
    bytes[i] = UInt8(truncatingIfNeeded: state >> 32)
  }
  return bytes
}

/// Where two byte sequences first differ (`nil` when equal). Tests compare large buffers
/// through this: `#expect(a == b)` on megabytes makes a failure compute a diff for minutes.
public func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> Int? {
  if a == b { return nil }
  let n = min(a.count, b.count)
  for i in 0..<n where a[i] != b[i] { return i }
  return n
}

extension Array where Element == UInt8 {
  /// Cuts the bytes into consecutive chunks of random sizes (1...maxChunk), so a decoder
  /// fed them sees every kind of boundary.
  public func randomSplits(maxChunk: Int, using generator: inout some RandomNumberGenerator) -> [[UInt8]] {
    var chunks: [[UInt8]] = []
    var index = 0
    while index < count {
      let size = Int.random(in: 1...Swift.max(1, maxChunk), using: &generator)
      chunks.append(Array(self[index..<Swift.min(index + size, count)]))
      index += size
    }
    return chunks
  }
}
