#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The benchmark's message text: `b:<sender>:<seq>:<sendNanos>:` padded with `x` to the
/// configured size. Receivers compute latency from the embedded monotonic send time,
/// which every connection of the one generator process shares.
enum BenchMessage {
  /// The shortest text that still holds the header with large numbers.
  static let minimumSize = 48

  /// Appends the text for one message to `buffer`.
  static func append(into buffer: inout [UInt8], sender: Int, seq: UInt64, nanos: UInt64, size: Int) {
    let start = buffer.count
    buffer.append(UInt8(ascii: "b"))
    buffer.append(UInt8(ascii: ":"))
    appendDecimal(&buffer, UInt64(sender))
    buffer.append(UInt8(ascii: ":"))
    appendDecimal(&buffer, seq)
    buffer.append(UInt8(ascii: ":"))
    appendDecimal(&buffer, nanos)
    buffer.append(UInt8(ascii: ":"))
    let used = buffer.count - start
    if used < size { buffer.append(contentsOf: repeatElement(UInt8(ascii: "x"), count: size - used)) }
  }

  static func appendDecimal(_ buffer: inout [UInt8], _ value: UInt64) {
    // At most 20 digits, produced backwards into a stack buffer.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { stack in
      var v = value
      var count = 0
      repeat {
        stack[count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
        v /= 10
        count += 1
      } while v > 0
      while count > 0 {
        count -= 1
        buffer.append(stack[count])
      }
    }
  }

  /// The sender and send time of a message text starting at `p` (at its `b:`), or `nil`
  /// when the bytes are not a benchmark message.
  @inline(__always)
  static func parse(_ p: UnsafePointer<UInt8>, count: Int) -> (sender: Int, nanos: UInt64)? {
    guard count >= 8, p[0] == UInt8(ascii: "b"), p[1] == UInt8(ascii: ":") else { return nil }
    var i = 2
    var fields: (UInt64, UInt64, UInt64) = (0, 0, 0)
    for field in 0..<3 {
      var v: UInt64 = 0
      let begin = i
      while i < count {
        let c = p[i]
        if c == UInt8(ascii: ":") { break }
        let d = c &- UInt8(ascii: "0")
        if d > 9 { return nil }
        v = v &* 10 &+ UInt64(d)
        i += 1
      }
      if i == begin || i >= count { return nil }
      i += 1  // the colon
      switch field {
      case 0: fields.0 = v
      case 1: fields.1 = v
      default: fields.2 = v
      }
    }
    return (Int(truncatingIfNeeded: fields.0), fields.2)
  }
}

/// Monotonic nanoseconds (CLOCK_MONOTONIC, the same clock in every thread of the process).
@inline(__always)
func monotonicNanos() -> UInt64 {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}
