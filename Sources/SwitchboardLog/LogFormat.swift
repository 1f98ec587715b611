/// How a ``StreamLogSink`` writes a ``LogRecord``: one line of text for people, or one
/// JSON object per line for machines.
public enum LogFormat: String, Sendable, Hashable, CaseIterable {
  /// `2025-05-01T09:30:32.123Z info switchboard: accepted conn=7 peer=127.0.0.1:50712`
  ///
  /// Metadata follows the message as `key=value`, keys sorted; a value that is empty or
  /// holds a space, `"`, `=`, `\` or a control character is written as a JSON string.
  /// Control characters in the message are escaped, so one record is always one line.
  case text
  /// `{"ts":"2025-05-01T09:30:32.123Z","level":"info","label":"switchboard","msg":"accepted","conn":"7",…}`
  ///
  /// `ts` (RFC 3339, UTC, milliseconds), `level`, `label` and `msg` first, then every
  /// metadata key, sorted, with a string value. A metadata key that is one of those four
  /// names is written with `_` before it (`_msg`), so no key appears twice.
  case json

  /// Parses `text` or `json`.
  public init?(name: String) {
    self.init(rawValue: name.lowercased())
  }

  /// The record as one line, without the newline.
  public func line(for record: LogRecord) -> String {
    var bytes: [UInt8] = []
    append(record, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends the record's line, without the newline, as UTF-8.
  public func append(_ record: LogRecord, to bytes: inout [UInt8]) {
    bytes.reserveCapacity(bytes.count + 64 + record.message.utf8.count + 32 * record.metadata.count)
    switch self {
    case .text: Self.appendText(record, to: &bytes)
    case .json: Self.appendJSON(record, to: &bytes)
    }
  }

  private static func appendText(_ record: LogRecord, to bytes: inout [UInt8]) {
    record.time.appendRFC3339(to: &bytes)
    bytes.append(UInt8(ascii: " "))
    bytes += record.level.name.utf8
    if !record.label.isEmpty {
      bytes.append(UInt8(ascii: " "))
      appendEscaped(record.label, quotes: false, to: &bytes)
    }
    bytes += ": ".utf8
    appendEscaped(record.message, quotes: false, to: &bytes)
    for (key, value) in record.metadata.sorted(by: { $0.key < $1.key }) {
      bytes.append(UInt8(ascii: " "))
      appendEscaped(key, quotes: false, to: &bytes)
      bytes.append(UInt8(ascii: "="))
      if needsQuotes(value) {
        appendJSONString(value, to: &bytes)
      } else {
        bytes += value.utf8
      }
    }
  }

  private static func appendJSON(_ record: LogRecord, to bytes: inout [UInt8]) {
    bytes += #"{"ts":""#.utf8
    record.time.appendRFC3339(to: &bytes)
    bytes += #"","level":""#.utf8
    bytes += record.level.name.utf8
    bytes += #"","label":"#.utf8
    appendJSONString(record.label, to: &bytes)
    bytes += #","msg":"#.utf8
    appendJSONString(record.message, to: &bytes)
    for (key, value) in record.metadata.sorted(by: { $0.key < $1.key }) {
      bytes.append(UInt8(ascii: ","))
      appendJSONString(reservedKeys.contains(key) ? "_" + key : key, to: &bytes)
      bytes.append(UInt8(ascii: ":"))
      appendJSONString(value, to: &bytes)
    }
    bytes.append(UInt8(ascii: "}"))
  }

  /// The fields every JSON line starts with.
  static let reservedKeys: Set<String> = ["ts", "level", "label", "msg"]

  /// Whether a text-format value must be quoted to be read back unambiguously.
  static func needsQuotes(_ value: String) -> Bool {
    value.isEmpty
      || value.utf8.contains {
        $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "=")
          || $0 == UInt8(ascii: "\\")
      }
  }

  /// `text` as a JSON string literal, quotes included (RFC 8259 §7).
  static func appendJSONString(_ text: String, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "\""))
    appendEscaped(text, quotes: true, to: &bytes)
    bytes.append(UInt8(ascii: "\""))
  }

  /// `text` with control characters escaped as JSON escapes them (`\n`, `\t`, … or
  /// `\u00XX`), and with `quotes`, `"` and `\` too. Everything else — non-ASCII
  /// included — is copied as its UTF-8, which JSON allows.
  private static func appendEscaped(_ text: String, quotes: Bool, to bytes: inout [UInt8]) {
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"):
        if quotes { bytes.append(UInt8(ascii: "\\")) }
        bytes.append(byte)
      case 0x0A: bytes += #"\n"#.utf8
      case 0x0D: bytes += #"\r"#.utf8
      case 0x09: bytes += #"\t"#.utf8
      case 0x08: bytes += #"\b"#.utf8
      case 0x0C: bytes += #"\f"#.utf8
      case 0x00..<0x20, 0x7F:
        bytes += #"\u00"#.utf8
        bytes.append(hexDigit(byte >> 4))
        bytes.append(hexDigit(byte & 0xF))
      default:
        bytes.append(byte)
      }
    }
  }

  private static func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
  }
}
