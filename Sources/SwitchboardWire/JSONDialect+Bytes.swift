/// The byte-level pieces the JSON frames are built from.
extension JSONDialect {
  /// A message's object, `{"id":…,"room":…,"time":…,"text":…,"author":…,"color":…}`
  /// (with `"action":true` for `/me`). `opening` is what comes before the id (the object's
  /// `{"id":`, or a frame's prefix ending in it) and `closing` what follows the object's
  /// `}`: each literal is one bulk copy, the quotes around the strings inside them.
  package static func appendObject(
    _ m: ChatMessage, to out: inout [UInt8], opening: StaticString = #"{"id":"#, inFrame: Bool = false
  ) {
    append(opening, to: &out)
    appendDecimal(m.id, to: &out)
    append(#","room":""#, to: &out)
    appendEscaped(m.room, to: &out)
    append(#"","time":"#, to: &out)
    appendDecimal(m.time, to: &out)
    append(#","text":""#, to: &out)
    m.withTextUTF8 { appendEscaped($0, to: &out) }
    append(#"","author":""#, to: &out)
    appendEscaped(m.author, to: &out)
    append(#"","color":""#, to: &out)
    appendEscaped(m.color, to: &out)
    let end: StaticString =
      switch (m.isAction, inFrame) {
      case (false, false): #""}"#
      case (false, true): #""}}"#
      case (true, false): #"","action":true}"#
      case (true, true): #"","action":true}}"#
      }
    append(end, to: &out)
  }

  /// Bytes enough for a message's object when nothing in it needs escaping.
  package static func estimate(_ m: ChatMessage) -> Int {
    m.room.utf8.count + m.textUTF8Count + m.author.utf8.count + m.color.utf8.count + 104
  }

  /// Bytes enough for a message's object whatever its text holds: a text not known to be
  /// plain is counted as if every byte took a six-byte escape (`\u0001`). O(1), for
  /// cutting replays into slices (the server's `HistoryReplay`).
  package static func sizeBound(_ m: ChatMessage) -> Int {
    let escapes = m.room.utf8.count + m.author.utf8.count + (m.textNeedsNoJSONEscape ? 0 : m.textUTF8Count)
    return estimate(m) + 5 * escapes
  }

  static func append(_ literal: StaticString, to out: inout [UInt8]) {
    out.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
  }

  static func appendDecimal(_ value: UInt64, to out: inout [UInt8]) {
    if value < 10 {
      out.append(UInt8(ascii: "0") + UInt8(value))
      return
    }
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var rest = value
      var at = 20
      while rest > 0 {
        at -= 1
        digits[at] = UInt8(ascii: "0") + UInt8(rest % 10)
        rest /= 10
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[at..<20]))
    }
  }

  static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
    if value < 0 { out.append(UInt8(ascii: "-")) }
    appendDecimal(value.magnitude, to: &out)
  }

  /// `s` as a JSON string literal: `"` and `\` escaped, `\n` `\r` `\t` by name, the other
  /// controls as `\u00XX` (lower-case hex), U+2028 and U+2029 as `\u2028` `\u2029` (a
  /// JavaScript line break inside a string), everything else verbatim.
  static func appendQuoted(_ s: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    appendEscaped(s, to: &out)
    out.append(UInt8(ascii: "\""))
  }

  /// The inside of ``appendQuoted(_:to:)``, without the quotes. The next byte that may need
  /// an escape is found eight bytes at a time (``nextStop(in:from:lineSeparatorLead:)``),
  /// and the run before it is copied in one go.
  static func appendEscaped(_ s: String, to out: inout [UInt8]) {
    var s = s
    s.withUTF8 { appendEscaped($0, to: &out) }
  }

  /// ``appendEscaped(_:to:)`` of UTF-8 bytes.
  static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
    var runStart = 0
    var i = nextStop(in: bytes, from: 0, lineSeparatorLead: true)
    while i < bytes.count {
      let byte = bytes[i]
      if byte == 0xE2 {
        // U+2028 is E2 80 A8, U+2029 is E2 80 A9; other E2 sequences are copied.
        guard isLineSeparator(bytes, at: i) else {
          i = nextStop(in: bytes, from: i + 1, lineSeparatorLead: true)
          continue
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
        append(bytes[i + 2] == 0xA8 ? #"\u2028"# : #"\u2029"#, to: &out)
        runStart = i + 3
        i = nextStop(in: bytes, from: runStart, lineSeparatorLead: true)
        continue
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
      switch byte {
      case UInt8(ascii: "\""): append(#"\""#, to: &out)
      case UInt8(ascii: "\\"): append(#"\\"#, to: &out)
      case UInt8(ascii: "\n"): append(#"\n"#, to: &out)
      case UInt8(ascii: "\r"): append(#"\r"#, to: &out)
      case UInt8(ascii: "\t"): append(#"\t"#, to: &out)
      default:
        append(#"\u00"#, to: &out)
        out.append(hexDigit(byte >> 4))
        out.append(hexDigit(byte & 0xF))
      }
      runStart = i + 1
      i = nextStop(in: bytes, from: runStart, lineSeparatorLead: true)
    }
    if runStart < bytes.count {
      out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
    }
  }

  private static func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
  }
}
