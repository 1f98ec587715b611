/// One RESP value, as Redis sends it: the RESP2 types and the ones RESP3 added.
///
/// A pure value. ``RESPDecoder`` makes these from bytes (never crashing on any input) and
/// ``encode(into:)`` writes them back, so that decoding what was encoded gives the same
/// bytes again. Strings that may hold any bytes (bulk strings, verbatim strings, bulk
/// errors) are `[UInt8]`; line types (simple strings, errors, big numbers) are `String`,
/// and their text never holds a CR or LF (the decoder rejects such a line, the encoder
/// writes them as they are, so build them only from text without line breaks).
public indirect enum RESPValue: Sendable, Hashable, CustomStringConvertible {
  /// `+OK` — a short status line.
  case simpleString(String)
  /// `-ERR message` — an error reply; the first word is its prefix (`ERR`, `NOSCRIPT`,
  /// `WRONGTYPE`, `MOVED` …).
  case error(String)
  /// `:42` — a signed 64-bit integer.
  case integer(Int64)
  /// `$3\r\nfoo` — a binary-safe string.
  case bulkString([UInt8])
  /// `_` (RESP3), `$-1` or `*-1` (RESP2): no value.
  case null
  /// `*N` — an ordered list.
  case array([RESPValue])
  /// `%N` (RESP3) — key/value pairs in the order the server sent them.
  case map([RESPPair])
  /// `~N` (RESP3) — an unordered collection, kept in the order sent.
  case set([RESPValue])
  /// `,3.14` (RESP3) — a double (also `inf`, `-inf`, `nan`).
  case double(Double)
  /// `#t` / `#f` (RESP3).
  case boolean(Bool)
  /// `(12345678901234567890` (RESP3) — an integer of any size, as its decimal digits.
  case bigNumber(String)
  /// `=15\r\ntxt:Some string` (RESP3) — a string with a three-letter format (`txt`, `mkd`).
  case verbatimString(format: String, text: [UInt8])
  /// `!N` (RESP3) — an error reply whose text may hold any bytes.
  case bulkError([UInt8])
  /// `>N` (RESP3) — out-of-band data (pub/sub messages, invalidations), not a reply.
  case push([RESPValue])
  /// `|N` (RESP3) — attributes (key/value pairs) the server attached to the value after them.
  case attribute([RESPPair], RESPValue)

  /// The bytes of a bulk, simple or verbatim string (or of a simple/bulk error); `nil` for
  /// other types.
  public var bytes: [UInt8]? {
    switch self {
    case .bulkString(let bytes), .bulkError(let bytes): bytes
    case .simpleString(let text), .error(let text): Array(text.utf8)
    case .verbatimString(_, let text): text
    case .attribute(_, let value): value.bytes
    default: nil
    }
  }

  /// The value as text (UTF-8, invalid sequences replaced) when it is a string type.
  public var string: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

  /// The integer of an `integer` (or of a string holding one, as RESP2 sends some counts).
  public var integer: Int64? {
    switch self {
    case .integer(let value): value
    case .bulkString, .simpleString: string.flatMap { Int64($0) }
    case .attribute(_, let value): value.integer
    default: nil
    }
  }

  /// The elements of an array, set or push (a map's keys and values alternating); `nil`
  /// for other types.
  public var elements: [RESPValue]? {
    switch self {
    case .array(let values), .set(let values), .push(let values): values
    case .map(let pairs): pairs.flatMap { [$0.key, $0.value] }
    case .attribute(_, let value): value.elements
    default: nil
    }
  }

  /// `true` for `null` (RESP2's null bulk string and null array decode to it too).
  public var isNull: Bool {
    switch self {
    case .null: true
    case .attribute(_, let value): value.isNull
    default: false
    }
  }

  /// The error text of an `error` or `bulkError`; `nil` for other types.
  public var errorMessage: String? {
    switch self {
    case .error(let text): text
    case .bulkError(let bytes): String(decoding: bytes, as: UTF8.self)
    case .attribute(_, let value): value.errorMessage
    default: nil
    }
  }

  /// A short rendering for logs and test failures (not a wire format).
  public var description: String {
    switch self {
    case .simpleString(let text): "+\(text)"
    case .error(let text): "-\(text)"
    case .integer(let value): ":\(value)"
    case .bulkString(let bytes): "\"\(String(decoding: bytes, as: UTF8.self))\""
    case .null: "null"
    case .array(let values): "[\(values.map(\.description).joined(separator: ", "))]"
    case .map(let pairs): "{\(pairs.map { "\($0.key): \($0.value)" }.joined(separator: ", "))}"
    case .set(let values): "~[\(values.map(\.description).joined(separator: ", "))]"
    case .double(let value): ",\(value)"
    case .boolean(let value): value ? "#t" : "#f"
    case .bigNumber(let digits): "(\(digits)"
    case .verbatimString(let format, let text): "=\(format):\(String(decoding: text, as: UTF8.self))"
    case .bulkError(let bytes): "!\(String(decoding: bytes, as: UTF8.self))"
    case .push(let values): ">[\(values.map(\.description).joined(separator: ", "))]"
    case .attribute(let pairs, let value):
      "|{\(pairs.map { "\($0.key): \($0.value)" }.joined(separator: ", "))} \(value)"
    }
  }
}

/// One key/value pair of a RESP3 map or attribute.
public struct RESPPair: Sendable, Hashable {
  /// The key (any RESP value; Redis sends strings).
  public var key: RESPValue
  /// The value.
  public var value: RESPValue

  /// A pair.
  public init(key: RESPValue, value: RESPValue) {
    self.key = key
    self.value = value
  }
}
