/// The input side SHA-1 and SHA-256 share (FIPS 180-4 §5): bytes gathered into 64-byte
/// blocks for the compression function, and the final padding (a 1 bit, zeros, the message
/// length in bits as a 64-bit big-endian number).
struct BlockBuffer: Sendable {
  /// Bytes in a block.
  static let blockLength = 64

  /// Input not yet hashed: less than one block.
  private var pending: [UInt8] = []
  /// Bytes given so far (the message length the padding ends with).
  private var length: UInt64 = 0

  init() { pending.reserveCapacity(Self.blockLength) }

  /// Adds `bytes`, handing each completed block to `compress`.
  mutating func update(_ bytes: some Sequence<UInt8>, _ compress: (ArraySlice<UInt8>) -> Void) {
    for byte in bytes {
      pending.append(byte)
      length &+= 1
      if pending.count == Self.blockLength {
        compress(pending[...])
        pending.removeAll(keepingCapacity: true)
      }
    }
  }

  /// Pads the message and hands the last one or two blocks to `compress`.
  mutating func finalize(_ compress: (ArraySlice<UInt8>) -> Void) {
    let bits = length &* 8
    var tail = pending
    tail.append(0x80)
    while tail.count % Self.blockLength != 56 { tail.append(0) }
    for shift in stride(from: 56, through: 0, by: -8) {
      tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
    }
    for start in stride(from: 0, to: tail.count, by: Self.blockLength) {
      compress(tail[start..<(start + Self.blockLength)])
    }
    pending = []
  }

  /// `buffer`'s contents, leaving an empty one in its place: the caller updates the
  /// returned value while its compression function mutates the hash (no copy of the bytes).
  static func taken(from buffer: inout BlockBuffer) -> BlockBuffer {
    var taken = BlockBuffer()
    swap(&taken, &buffer)
    return taken
  }

  /// The block's sixteen 32-bit big-endian words into `w[0..<16]` (the message schedule's start).
  static func loadWords(_ block: ArraySlice<UInt8>, into w: inout [UInt32]) {
    var index = block.startIndex
    for t in 0..<16 {
      w[t] =
        UInt32(block[index]) << 24 | UInt32(block[index + 1]) << 16 | UInt32(block[index + 2]) << 8
        | UInt32(block[index + 3])
      index += 4
    }
  }

  /// The state words as the digest: each big-endian.
  static func bigEndian(_ words: [UInt32]) -> [UInt8] {
    var digest: [UInt8] = []
    digest.reserveCapacity(words.count * 4)
    for word in words {
      digest += [
        UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8),
        UInt8(truncatingIfNeeded: word),
      ]
    }
    return digest
  }
}
