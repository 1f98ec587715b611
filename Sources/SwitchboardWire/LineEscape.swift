/// The line dialect's one rule for a member's text, a name or a room name inside a line:
/// nothing in it can end the line, so nothing a member sends can become a line of its own
/// (another author's `NAME: …`, a `* …` notice, a `! …` error) on a TCP, TLS or UDP member.
///
/// What is escaped, and how (docs/PROTOCOLS.md, "Text inside a line"):
/// - LF `\n`, CR `\r`, VT `\v`, FF `\f` — the line breaks a terminal or a line reader acts on;
/// - every other C0 control but the tab, DEL, the C1 controls U+0080–U+009F (NEL, U+0085,
///   among them), U+2028 and U+2029 as `\u{HEX}` (lowercase hex, no leading zeros). Besides
///   the breaks, this keeps an escape sequence (ESC, U+001B) from moving a terminal's cursor
///   to draw over a line already shown;
/// - a backslash is doubled only where it would otherwise be read as the start of an escape:
///   before `\`, `n`, `r`, `v`, `f`, `u{`, or a character that is itself escaped. Elsewhere it
///   stays single, so `C:\path` reads as it was typed.
///
/// ``unescape(_:)`` undoes it exactly: `unescape(escape(t)) == t` for every `t`. A text with
/// none of these bytes (the common case) is its own escape.
public enum LineEscape {
  /// `text` with its line breaks, controls and separators escaped (see ``LineEscape``).
  public static func escape(_ text: String) -> String {
    var text = text
    return text.withUTF8 { bytes in
      let count = escapedCount(bytes)
      if count == bytes.count { return String(decoding: bytes, as: UTF8.self) }
      return String(unsafeUninitializedCapacity: count) { out in
        write(bytes, to: out.baseAddress!)
      }
    }
  }

  /// The text an escaped field stands for: `\n`, `\r`, `\v`, `\f`, `\\` and `\u{HEX}` (a
  /// Unicode scalar value, one to six hex digits) read back; any other backslash is itself.
  public static func unescape(_ field: some StringProtocol) -> String {
    guard field.utf8.contains(backslash) else { return String(field) }
    var out = String.UnicodeScalarView()
    let scalars = Array(field.unicodeScalars)
    var i = 0
    while i < scalars.count {
      let s = scalars[i]
      guard s == "\\", i + 1 < scalars.count else {
        out.append(s)
        i += 1
        continue
      }
      switch scalars[i + 1] {
      case "\\": out.append("\\")
      case "n": out.append("\n")
      case "r": out.append("\r")
      case "v": out.append("\u{0B}")
      case "f": out.append("\u{0C}")
      case "u":
        if let (scalar, length) = hexEscape(scalars, at: i) {
          out.append(scalar)
          i += length
          continue
        }
        out.append(s)
        i += 1
        continue
      default:
        out.append(s)
        i += 1
        continue
      }
      i += 2
    }
    return String(out)
  }

  /// `\u{HEX}` at `i`: the scalar and the escape's length in scalars.
  private static func hexEscape(_ scalars: [Unicode.Scalar], at i: Int) -> (Unicode.Scalar, Int)? {
    guard i + 3 < scalars.count, scalars[i + 2] == "{" else { return nil }
    var value: UInt32 = 0
    var j = i + 3
    while j < scalars.count, j - (i + 3) < 6, let digit = hexValue(scalars[j]) {
      value = value << 4 | digit
      j += 1
    }
    guard j > i + 3, j < scalars.count, scalars[j] == "}", let scalar = Unicode.Scalar(value) else { return nil }
    return (scalar, j + 1 - i)
  }

  private static func hexValue(_ s: Unicode.Scalar) -> UInt32? {
    switch s.value {
    case 0x30...0x39: s.value - 0x30
    case 0x61...0x66: s.value - 0x61 + 10
    case 0x41...0x46: s.value - 0x41 + 10
    default: nil
    }
  }

  /// Whether `scalar` is one ``escape(_:)`` writes as an escape (never the backslash).
  public static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x09: false
    case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
    default: false
    }
  }

  // MARK: Bytes (the server's hot path)

  static let backslash = UInt8(ascii: "\\")

  /// The byte count of the escape of the UTF-8 `bytes` (`bytes.count` when nothing in them
  /// needs one: the common case, found eight bytes at a time).
  package static func escapedCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
    var i = nextStop(in: bytes, from: 0)
    guard i < bytes.count else { return bytes.count }
    var count = bytes.count
    while i < bytes.count {
      let (length, written) = escapeAt(bytes, i)
      count += written - length
      i = nextStop(in: bytes, from: i + length)
    }
    return count
  }

  /// Copies `bytes` to `destination` while looking for a character that needs an escape:
  /// `true` when there is none, so the copy is the escape; `false` at the first, with the
  /// copy unfinished. One pass, eight bytes at a time (``PlainCopy``); a tab, a lone
  /// backslash, an E2 that leads a dash are copied.
  @inline(__always)
  package static func copyIfPlain(_ bytes: UnsafeBufferPointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>)
    -> Bool
  {
    PlainCopy.copy(
      bytes, to: destination, marks: stopMarks, isStop: isStop, isPlain: { !needsEscape(bytes, from: $0, to: $1) })
  }


  /// Whether a character starting in `from..<to` is written as an escape (asked of a piece
  /// in which ``stopMarks(_:)`` marked something: a mark may be a byte that needs none).
  @inline(never)
  static func needsEscape(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Bool {
    for i in from..<to where isStop(bytes[i]) {
      let (length, written) = escapeAt(bytes, i)
      if written != length { return true }
    }
    return false
  }

  /// Writes the escape of the UTF-8 `bytes` to `out` (room for ``escapedCount(_:)`` bytes);
  /// returns the count written.
  @discardableResult
  package static func write(_ bytes: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>) -> Int {
    guard let base = bytes.baseAddress else { return 0 }
    var from = 0
    var at = 0
    var i = nextStop(in: bytes, from: 0)
    while i < bytes.count {
      let (length, _) = escapeAt(bytes, i)
      // The plain run before it, as it is.
      (out + at).update(from: base + from, count: i - from)
      at += i - from
      at += writeEscape(bytes, i, length, to: out + at)
      from = i + length
      i = nextStop(in: bytes, from: from)
    }
    (out + at).update(from: base + from, count: bytes.count - from)
    return at + bytes.count - from
  }

  /// At a stop `i`: the bytes of the character there and the bytes its escape takes (the
  /// same when it needs none: a tab, a lone backslash, a C2 or E2 that leads a character not
  /// escaped, which is passed over a byte at a time, so that even bytes that are not UTF-8
  /// hide no line feed).
  @inline(__always)
  private static func escapeAt(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int) -> (length: Int, written: Int) {
    switch bytes[i] {
    case backslash: (1, isEscapeStart(bytes, after: i) ? 2 : 1)
    case 0x0A, 0x0B, 0x0C, 0x0D: (1, 2)
    case 0x00...0x08, 0x0E, 0x0F: (1, 5)  // \u{X}
    case 0x10...0x1F, 0x7F: (1, 6)  // \u{XX}
    case 0xC2 where isC1(bytes, at: i): (2, 6)  // \u{XX}
    case 0xE2 where isSeparator(bytes, at: i): (3, 8)  // \u{2028}
    default: (1, 1)  // a tab, or a lead byte of another character
    }
  }

  /// Writes the escape of the character at stop `i` (`length` bytes) to `out`; the count.
  private static func writeEscape(
    _ bytes: UnsafeBufferPointer<UInt8>, _ i: Int, _ length: Int, to out: UnsafeMutablePointer<UInt8>
  ) -> Int {
    func letter(_ c: UInt8) -> Int {
      out[0] = backslash
      out[1] = c
      return 2
    }
    func hex(_ value: UInt32) -> Int {
      out[0] = backslash
      out[1] = UInt8(ascii: "u")
      out[2] = UInt8(ascii: "{")
      var at = 3
      var shift = (32 - value.leadingZeroBitCount + 3) / 4 * 4
      if shift == 0 { shift = 4 }
      while shift > 0 {
        shift -= 4
        let digit = UInt8((value >> UInt32(shift)) & 0xF)
        out[at] = digit < 10 ? 0x30 + digit : 0x61 + digit - 10
        at += 1
      }
      out[at] = UInt8(ascii: "}")
      return at + 1
    }
    let b = bytes[i]
    switch b {
    case backslash:
      out[0] = backslash
      guard isEscapeStart(bytes, after: i) else { return 1 }
      out[1] = backslash
      return 2
    case 0x0A: return letter(UInt8(ascii: "n"))
    case 0x0D: return letter(UInt8(ascii: "r"))
    case 0x0B: return letter(UInt8(ascii: "v"))
    case 0x0C: return letter(UInt8(ascii: "f"))
    case 0x00...0x08, 0x0E...0x1F, 0x7F: return hex(UInt32(b))
    case 0xC2 where length == 2: return hex(UInt32(bytes[i + 1]))
    case 0xE2 where length == 3: return hex(bytes[i + 2] == 0xA8 ? 0x2028 : 0x2029)
    default:
      out[0] = b
      return 1
    }
  }

  /// Whether the character after the backslash at `i` would make it read as an escape:
  /// `\`, `n`, `r`, `v`, `f`, `u{`, or a character that is itself escaped.
  @inline(__always)
  private static func isEscapeStart(_ bytes: UnsafeBufferPointer<UInt8>, after i: Int) -> Bool {
    let j = i + 1
    guard j < bytes.count else { return false }
    switch bytes[j] {
    case backslash, UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "v"), UInt8(ascii: "f"): return true
    case UInt8(ascii: "u"): return j + 1 < bytes.count && bytes[j + 1] == UInt8(ascii: "{")
    case 0x09: return false
    case 0x00...0x1F, 0x7F: return true
    case 0xC2: return isC1(bytes, at: j)
    case 0xE2: return isSeparator(bytes, at: j)
    default: return false
    }
  }

  /// A C1 control (C2 80 … C2 9F) at `i`.
  @inline(__always)
  private static func isC1(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
    bytes[i] == 0xC2 && bytes.count - i > 1 && bytes[i + 1] & 0xE0 == 0x80
  }

  /// U+2028 or U+2029 (E2 80 A8, E2 80 A9) at `i`.
  @inline(__always)
  private static func isSeparator(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
    bytes[i] == 0xE2 && bytes.count - i > 2 && bytes[i + 1] == 0x80 && bytes[i + 2] & 0xFE == 0xA8
  }

  /// The index of the first byte at or after `start` that may need an escape (a control,
  /// `\`, DEL, or the lead byte C2 or E2 of a C1 control or a separator), or `bytes.count`.
  /// Eight bytes at a time (``WordScan``), as ``JSONDialect`` scans.
  @inline(__always)
  static func nextStop(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
    WordScan.firstStop(in: bytes, from: start, marks: stopMarks, isStop: isStop)
  }

  @inline(__always)
  static func stopMarks(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    func equal(_ c: UInt8) -> UInt64 {
      let x = word ^ (ones &* UInt64(c))
      return (x &- ones) & ~x
    }
    let controls = (word &- ones &* 0x20) & ~word
    return (controls | equal(backslash) | equal(0x7F) | equal(0xC2) | equal(0xE2)) & 0x8080_8080_8080_8080
  }

  @inline(__always)
  static func isStop(_ byte: UInt8) -> Bool {
    byte < 0x20 || byte == backslash || byte == 0x7F || byte == 0xC2 || byte == 0xE2
  }
}
