/// Finding the first byte of interest in UTF-8 bytes eight bytes at a time: the loop that
/// the JSON dialect's and the line dialect's escape scans share, each with its own marks.
enum WordScan {
  /// The index of the first byte at or after `start` for which `isStop` holds, or
  /// `bytes.count`. Whole 8-byte words go through `marks`, which sets the high bit of each
  /// byte that may be a stop: a borrow in the subtraction tricks it is built from can mark
  /// a byte above a true hit, never below one, so the lowest mark is exact; the tail goes
  /// byte by byte through `isStop`.
  @inline(__always)
  static func firstStop(
    in bytes: UnsafeBufferPointer<UInt8>, from start: Int, marks: (UInt64) -> UInt64, isStop: (UInt8) -> Bool
  ) -> Int {
    let count = bytes.count
    var i = start
    // `start` is within the bytes, so none of the index arithmetic can overflow.
    if let base = bytes.baseAddress, count &- i >= 8 {
      let raw = UnsafeRawPointer(base)
      while count &- i >= 8 {
        let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        let found = marks(word)
        if found != 0 { return i &+ found.trailingZeroBitCount &>> 3 }
        i &+= 8
      }
    }
    while i < count {
      if isStop(bytes[i]) { return i }
      i &+= 1
    }
    return count
  }
}
