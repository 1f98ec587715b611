/// Copying bytes while looking for one that must be written otherwise, eight bytes at a
/// time: the one pass the JSON and line writers' fast paths share (``JSONDialect`` for a
/// string that needs no JSON escape, ``LineEscape`` for a text that needs no line escape).
enum PlainCopy {
  /// Copies `bytes` to `destination` and says whether all of them are plain: `false` at the
  /// first that is not, with the copy unfinished. Each word is stored as it is tested, and
  /// only a word that `marks` marks is asked of `isPlain` (a mark may be a byte that needs
  /// nothing after all: a tab in a line, an E2 that leads a dash).
  /// - Parameters:
  ///   - marks: the high bit of each byte of a little-endian word that may not be plain (a
  ///     borrow may mark bytes above a true hit, never below one).
  ///   - isStop: the same for one byte (the last few of a string shorter than a word).
  ///   - isPlain: whether every character that starts at `from..<to` is plain.
  @inline(__always)
  static func copy(
    _ bytes: UnsafeBufferPointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>, marks: (UInt64) -> UInt64,
    isStop: (UInt8) -> Bool, isPlain: (_ from: Int, _ to: Int) -> Bool
  ) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    let count = bytes.count
    let raw = UnsafeRawPointer(base)
    let out = UnsafeMutableRawPointer(destination)
    var i = 0
    while count &- i >= 8 {
      let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
      out.storeBytes(of: word, toByteOffset: i, as: UInt64.self)
      if marks(UInt64(littleEndian: word)) != 0 && !isPlain(i, i &+ 8) { return false }
      i &+= 8
    }
    // The last few bytes of a string of eight or more: the last word, overlapping bytes
    // already found plain (stored again as they are), not a byte at a time.
    if i < count && count >= 8 {
      let word = raw.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
      out.storeBytes(of: word, toByteOffset: count &- 8, as: UInt64.self)
      return marks(UInt64(littleEndian: word)) == 0 || isPlain(i, count)
    }
    while i < count {
      let byte = base[i]
      if isStop(byte) && !isPlain(i, i &+ 1) { return false }
      destination[i] = byte
      i &+= 1
    }
    return true
  }
}
