/// Finding the next byte a JSON string needs to stop at, eight bytes at a time.
extension JSONDialect {
  /// The index of the first byte at or after `start` in `bytes` that is a control (below
  /// 0x20), `"` or `\` (or, with `lineSeparatorLead`, 0xE2: the lead byte of U+2028 and
  /// U+2029), or `bytes.count` when there is none.
  ///
  /// Whole 8-byte words are tested at once: for each byte value sought, `(w ^ c) - 0x01…`
  /// borrows through a byte equal to `c`, and `w - 0x20…` through one below 0x20; a
  /// borrow can mark a byte above a true hit, never below one, so the lowest mark is exact.
  @inline(__always)
  static func nextStop(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, lineSeparatorLead: Bool) -> Int {
    let count = bytes.count
    var i = start
    if let base = bytes.baseAddress, count - i >= 8 {
      let raw = UnsafeRawPointer(base)
      let ones: UInt64 = 0x0101_0101_0101_0101
      let highs: UInt64 = 0x8080_8080_8080_8080
      while count - i >= 8 {
        let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        var marks = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
        if lineSeparatorLead {
          let lead = word ^ (ones &* 0xE2)
          marks |= (lead &- ones) & ~lead
        }
        marks &= highs
        if marks != 0 { return i + marks.trailingZeroBitCount >> 3 }
        i += 8
      }
    }
    while i < count {
      let byte = bytes[i]
      if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || (lineSeparatorLead && byte == 0xE2) {
        return i
      }
      i += 1
    }
    return count
  }
}
