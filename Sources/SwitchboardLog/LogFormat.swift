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
    switch self {
    case .text: Self.textLine(record)
    case .json: Self.jsonLine(record)
    }
  }

  private static func textLine(_ record: LogRecord) -> String {
    var line = record.time.rfc3339 + " " + record.level.name
    line += record.label.isEmpty ? ": " : " " + record.label + ": "
    line += escapingControlCharacters(record.message)
    for (key, value) in record.metadata.sorted(by: { $0.key < $1.key }) {
      line += " " + escapingControlCharacters(key) + "=" + (needsQuotes(value) ? jsonString(value) : value)
    }
    return line
  }

  private static func jsonLine(_ record: LogRecord) -> String {
    var line = "{\"ts\":\"" + record.time.rfc3339 + "\",\"level\":\"" + record.level.name + "\""
    line += ",\"label\":" + jsonString(record.label) + ",\"msg\":" + jsonString(record.message)
    for (key, value) in record.metadata.sorted(by: { $0.key < $1.key }) {
      let name = reservedKeys.contains(key) ? "_" + key : key
      line += "," + jsonString(name) + ":" + jsonString(value)
    }
    return line + "}"
  }

  /// The fields every JSON line starts with.
  static let reservedKeys: Set<String> = ["ts", "level", "label", "msg"]

  /// Whether a text-format value must be quoted to be read back unambiguously.
  static func needsQuotes(_ value: String) -> Bool {
    if value.isEmpty { return true }
    for byte in value.utf8 {
      switch byte {
      case 0x00...0x20, 0x7F, UInt8(ascii: "\""), UInt8(ascii: "="), UInt8(ascii: "\\"): return true
      default: continue
      }
    }
    return false
  }

  /// `text` as a JSON string literal, quotes included (RFC 8259 §7): `"` and `\`
  /// escaped, control characters as `\n`, `\t`, … or `\u00XX`, everything else — non-ASCII
  /// included — as its UTF-8.
  static func jsonString(_ text: String) -> String {
    var bytes: [UInt8] = [UInt8(ascii: "\"")]
    bytes.reserveCapacity(text.utf8.count + 2)
    appendEscaped(text, to: &bytes, escapingQuotes: true)
    bytes.append(UInt8(ascii: "\""))
    return String(decoding: bytes, as: UTF8.self)
  }

  /// `text` with control characters escaped as in JSON, quotes and backslashes as they are.
  static func escapingControlCharacters(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return text }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count + 8)
    appendEscaped(text, to: &bytes, escapingQuotes: false)
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func appendEscaped(_ text: String, to bytes: inout [UInt8], escapingQuotes: Bool) {
    let hex = Array("0123456789abcdef".utf8)
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"):
        if escapingQuotes { bytes.append(UInt8(ascii: "\\")) }
        bytes.append(byte)
      case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
      case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
      case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
      case 0x08: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
      case 0x0C: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
      case 0x00..<0x20, 0x7F:
        bytes += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")]
        bytes += [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
      default:
        bytes.append(byte)
      }
    }
  }
}
