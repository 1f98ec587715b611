/// Finding the next byte a JSON string needs to stop at, eight bytes at a time.
extension JSONDialect {
  /// The index of the first byte at or after `start` in `bytes` that is a control (below
  /// 0x20), `"` or `\` (or, with `lineSeparatorLead`, 0xE2: the lead byte of U+2028 and
  /// U+2029), or `bytes.count` when there is none.
  ///
  /// Whole 8-byte words are tested at once (``WordScan``): for each byte value sought,
  /// `(w ^ c) - 0x01…` borrows through a byte equal to `c`, and `w - 0x20…` through one below
  /// 0x20.
  @inline(__always)
  static func nextStop(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, lineSeparatorLead: Bool) -> Int {
    WordScan.firstStop(
      in: bytes, from: start, marks: { stopMarks($0, lineSeparatorLead: lineSeparatorLead) },
      isStop: { isStop($0, lineSeparatorLead: lineSeparatorLead) })
  }

  /// Whether the bytes at `i` are U+2028 or U+2029 (E2 80 A8, E2 80 A9): of the
  /// characters led by E2 (curly quotes, dashes, the euro sign, …), the only two a JSON
  /// protocol frame escapes (a browser's JavaScript once read them as line ends).
  @inline(__always)
  static func isLineSeparator(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
    bytes[i] == 0xE2 && bytes.count &- i > 2 && bytes[i &+ 1] == 0x80 && bytes[i &+ 2] & 0xFE == 0xA8
  }

  /// The index of the first byte at or after `start` that a JSON protocol string escapes
  /// (a control, `"`, `\`, or the first byte of U+2028 or U+2029), or `bytes.count`:
  /// ``nextStop(in:from:lineSeparatorLead:)``, passing over the E2 bytes that lead other
  /// characters.
  @inline(__always)
  static func nextEscape(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
    var i = nextStop(in: bytes, from: start, lineSeparatorLead: true)
    while i < bytes.count && bytes[i] == 0xE2 && !isLineSeparator(bytes, at: i) {
      i = nextStop(in: bytes, from: i &+ 1, lineSeparatorLead: true)
    }
    return i
  }

  /// Whether `s` goes into a JSON string as it is, with nothing escaped
  /// (``nextEscape(in:from:)`` finds nothing). For strings asked about once and written
  /// often (a room's name, a member's).
  package static func needsNoEscape(_ s: String) -> Bool {
    var s = s
    return s.withUTF8 { nextEscape(in: $0, from: 0) == $0.count }
  }

  /// Whether one of the bytes `from..<to` is one a JSON string escapes: asked, byte by
  /// byte, of a piece in which ``stopMarks(_:lineSeparatorLead:)`` marked something, since
  /// a mark may be an E2 that leads another character (or a byte a borrow marked).
  @inline(never)
  static func hasEscape(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Bool {
    for i in from..<to {
      let byte = bytes[i]
      if isStop(byte, lineSeparatorLead: false) || (byte == 0xE2 && isLineSeparator(bytes, at: i)) { return true }
    }
    return false
  }

  /// Copies `bytes` to `destination` while looking for a byte a JSON string escapes
  /// (``nextEscape(in:from:)``): `true` when there is none, so the copy is the string's
  /// inside as a JSON string; `false` at the first, with the copy unfinished. One pass,
  /// eight bytes at a time (``PlainCopy``): each word is stored as it is tested, and only a
  /// word with a mark is looked at byte by byte (an E2 that leads a curly quote is copied).
  @inline(__always)
  static func copyIfPlain(_ bytes: UnsafeBufferPointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>) -> Bool {
    PlainCopy.copy(
      bytes, to: destination, marks: { stopMarks($0, lineSeparatorLead: true) },
      isStop: { isStop($0, lineSeparatorLead: true) }, isPlain: { !hasEscape(bytes, from: $0, to: $1) })
  }

  /// The high bit of each byte of `word` (little-endian) that is a stop, and maybe of bytes
  /// above the first one (a borrow): the lowest mark is exact.
  @inline(__always)
  static func stopMarks(_ word: UInt64, lineSeparatorLead: Bool) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    let quote = word ^ (ones &* 0x22)
    let backslash = word ^ (ones &* 0x5C)
    var marks = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
    if lineSeparatorLead {
      let lead = word ^ (ones &* 0xE2)
      marks |= (lead &- ones) & ~lead
    }
    return marks & highs
  }

  /// Whether `byte` is a stop: a control, `"`, `\`, or (with `lineSeparatorLead`) 0xE2.
  @inline(__always)
  static func isStop(_ byte: UInt8, lineSeparatorLead: Bool) -> Bool {
    byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || (lineSeparatorLead && byte == 0xE2)
  }
}
