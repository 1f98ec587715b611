/// A strict JSON parser (RFC 8259) for token headers and payloads: a value type over bytes,
/// no Foundation, with a nesting limit.
///
/// Refused: invalid UTF-8, unescaped control characters, lone surrogate escapes, leading
/// zeros, `NaN`/`Infinity`, trailing commas, anything after the value but whitespace,
/// nesting deeper than `maxDepth`, and an object with the same member name twice (RFC 7515
/// §5.2 lets a JWS consumer refuse those; accepting them invites two parsers reading two
/// different `alg`s or `sub`s from one token).
struct JSONParser {
  /// Why parsing stopped.
  enum Failure: Error, Equatable {
    case malformed(String)
    case tooDeep
  }

  private let bytes: [UInt8]
  private var index = 0
  private let maxDepth: Int

  private init(_ bytes: [UInt8], maxDepth: Int) {
    self.bytes = bytes
    self.maxDepth = maxDepth
  }

  /// Parses one JSON text.
  static func parse(_ bytes: [UInt8], maxDepth: Int) throws(Failure) -> JSONValue {
    var parser = JSONParser(bytes, maxDepth: maxDepth)
    parser.skipWhitespace()
    let value = try parser.value(depth: 0)
    parser.skipWhitespace()
    guard parser.index == bytes.count else { throw .malformed("trailing bytes at \(parser.index)") }
    return value
  }

  private mutating func skipWhitespace() {
    while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
  }

  private func fail(_ what: String) -> Failure { .malformed("\(what) at \(index)") }

  private mutating func value(depth: Int) throws(Failure) -> JSONValue {
    guard index < bytes.count else { throw fail("unexpected end") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try object(depth: depth + 1)
    case UInt8(ascii: "["): return try array(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"):
      try literal("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try literal("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try literal("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
    default: throw fail("unexpected byte")
    }
  }

  private mutating func literal(_ word: StaticString) throws(Failure) {
    let count = word.utf8CodeUnitCount
    guard index + count <= bytes.count else { throw fail("unexpected end") }
    for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
      throw fail("bad literal")
    }
    index += count
  }

  private mutating func object(depth: Int) throws(Failure) -> JSONValue {
    guard depth <= maxDepth else { throw .tooDeep }
    index += 1
    var members: [String: JSONValue] = [:]
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
      index += 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw fail("expected a member name")
      }
      let name = try string()
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
      index += 1
      skipWhitespace()
      let item = try value(depth: depth)
      guard members.updateValue(item, forKey: name) == nil else { throw fail("duplicate member") }
      skipWhitespace()
      guard index < bytes.count else { throw fail("unexpected end") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      guard bytes[index] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
      index += 1
      return .object(members)
    }
  }

  private mutating func array(depth: Int) throws(Failure) -> JSONValue {
    guard depth <= maxDepth else { throw .tooDeep }
    index += 1
    var items: [JSONValue] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
      index += 1
      return .array(items)
    }
    while true {
      skipWhitespace()
      items.append(try value(depth: depth))
      skipWhitespace()
      guard index < bytes.count else { throw fail("unexpected end") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      guard bytes[index] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
      index += 1
      return .array(items)
    }
  }

  private mutating func number() throws(Failure) -> Double {
    let start = index
    if bytes[index] == UInt8(ascii: "-") { index += 1 }
    guard index < bytes.count, isDigit(bytes[index]) else { throw fail("bad number") }
    if bytes[index] == UInt8(ascii: "0") {
      index += 1
      if index < bytes.count, isDigit(bytes[index]) { throw fail("leading zero") }
    } else {
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard index < bytes.count, isDigit(bytes[index]) else { throw fail("bad fraction") }
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
        index += 1
      }
      guard index < bytes.count, isDigit(bytes[index]) else { throw fail("bad exponent") }
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    // The grammar above is JSON's; Double's own parser only sees text that passed it.
    guard let n = Double(String(decoding: bytes[start..<index], as: UTF8.self)), n.isFinite else {
      throw fail("number out of range")
    }
    return n
  }

  private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

  private mutating func string() throws(Failure) -> String {
    index += 1  // the opening quote
    var scalars = String.UnicodeScalarView()
    while true {
      guard index < bytes.count else { throw fail("unterminated string") }
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "\""):
        index += 1
        return String(scalars)
      case UInt8(ascii: "\\"):
        index += 1
        guard index < bytes.count else { throw fail("unterminated escape") }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""): scalars.append("\"")
        case UInt8(ascii: "\\"): scalars.append("\\")
        case UInt8(ascii: "/"): scalars.append("/")
        case UInt8(ascii: "b"): scalars.append("\u{08}")
        case UInt8(ascii: "f"): scalars.append("\u{0C}")
        case UInt8(ascii: "n"): scalars.append("\n")
        case UInt8(ascii: "r"): scalars.append("\r")
        case UInt8(ascii: "t"): scalars.append("\t")
        case UInt8(ascii: "u"): scalars.append(try unicodeEscape())
        default: throw fail("bad escape")
        }
      case 0..<0x20:
        throw fail("control character in string")
      case 0..<0x80:
        scalars.append(Unicode.Scalar(byte))
        index += 1
      default:
        scalars.append(try utf8Scalar())
      }
    }
  }

  private mutating func hex4() throws(Failure) -> UInt32 {
    guard index + 4 <= bytes.count else { throw fail("short \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      let digit: UInt32
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
      default: throw fail("bad \\u escape")
      }
      value = value << 4 | digit
      index += 1
    }
    return value
  }

  /// After `\u`: one escape, or a surrogate pair of two.
  private mutating func unicodeEscape() throws(Failure) -> Unicode.Scalar {
    let first = try hex4()
    switch first {
    case 0xD800...0xDBFF:
      guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
        bytes[index + 1] == UInt8(ascii: "u")
      else { throw fail("lone high surrogate") }
      index += 2
      let second = try hex4()
      guard (0xDC00...0xDFFF).contains(second) else { throw fail("bad low surrogate") }
      guard let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)) else {
        throw fail("bad surrogate pair")
      }
      return scalar
    case 0xDC00...0xDFFF:
      throw fail("lone low surrogate")
    default:
      guard let scalar = Unicode.Scalar(first) else { throw fail("bad \\u escape") }
      return scalar
    }
  }

  /// One multi-byte UTF-8 sequence, validated (no overlongs, no surrogates, ≤ U+10FFFF).
  private mutating func utf8Scalar() throws(Failure) -> Unicode.Scalar {
    let lead = bytes[index]
    let count: Int
    var value: UInt32
    let minimum: UInt32
    switch lead {
    case 0xC2...0xDF: (count, value, minimum) = (2, UInt32(lead & 0x1F), 0x80)
    case 0xE0...0xEF: (count, value, minimum) = (3, UInt32(lead & 0x0F), 0x800)
    case 0xF0...0xF4: (count, value, minimum) = (4, UInt32(lead & 0x07), 0x10000)
    default: throw fail("invalid UTF-8")
    }
    guard index + count <= bytes.count else { throw fail("truncated UTF-8") }
    for offset in 1..<count {
      let next = bytes[index + offset]
      guard next & 0xC0 == 0x80 else { throw fail("invalid UTF-8") }
      value = value << 6 | UInt32(next & 0x3F)
    }
    guard value >= minimum, let scalar = Unicode.Scalar(value) else { throw fail("invalid UTF-8") }
    index += count
    return scalar
  }
}
