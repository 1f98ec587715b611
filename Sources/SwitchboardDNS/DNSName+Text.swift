extension DNSName {
  /// How ``formatted(_:)`` writes a name as text.
  public enum TextStyle: Sendable, Hashable {
    /// RFC 1035 §5.1 presentation form, readable: labels joined by `.`, a trailing `.`; inside
    /// a label `.` and `\` are written `\.` and `\\`, control bytes and bytes that are not
    /// valid UTF-8 as `\DDD` (three decimal digits); spaces and other UTF-8 stay as they are.
    /// `My Room.v2._switchboard._tcp.local.` is instance `My Room.v2`. ``init(_:)`` reads it back.
    case presentation
    /// avahi's form (`avahi-browse`, `avahi_escape_label`): no trailing dot; inside a label
    /// `.` and `\` as `\.` and `\\`, letters, digits, `-` and `_` as they are, every other byte
    /// (space, UTF-8) as `\DDD`: `My\032Room\.v2._switchboard._tcp.local`.
    case avahi
  }

  /// A name parsed from text: labels separated by `.`, an optional trailing `.`, and the
  /// escapes `\.`, `\\`, `\DDD` (a byte, 000...255) and `\` before any other character (that
  /// character). `""` and `"."` are the root.
  /// - Throws: ``DNSError/invalidName`` for an empty label or a bad escape,
  ///   ``DNSError/labelTooLong``, ``DNSError/nameTooLong``.
  public init(_ text: String) throws(DNSError) {
    if text == "." || text.isEmpty {
      self = .root
      return
    }
    let bytes = Array(text.utf8)
    var labels: [[UInt8]] = []
    var label: [UInt8] = []
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "."):
        guard !label.isEmpty else { throw DNSError.invalidName.with("empty label in \"\(text)\"") }
        labels.append(label)
        label = []
        index += 1
      case UInt8(ascii: "\\"):
        guard index + 1 < bytes.count else {
          throw DNSError.invalidName.with("trailing backslash in \"\(text)\"")
        }
        let next = bytes[index + 1]
        if Self.isDigit(next) {
          guard index + 3 < bytes.count, Self.isDigit(bytes[index + 2]), Self.isDigit(bytes[index + 3]) else {
            throw DNSError.invalidName.with("\\DDD needs three digits in \"\(text)\"")
          }
          let value = Int(next - 48) * 100 + Int(bytes[index + 2] - 48) * 10 + Int(bytes[index + 3] - 48)
          guard value <= 255 else {
            throw DNSError.invalidName.with("\\\(value) is not a byte in \"\(text)\"")
          }
          label.append(UInt8(value))
          index += 4
        } else {
          label.append(next)
          index += 2
        }
      default:
        label.append(byte)
        index += 1
      }
    }
    if !label.isEmpty { labels.append(label) }
    try self.init(labels: labels)
  }

  private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

  /// The name in ``TextStyle/presentation`` form, e.g. `My Room._switchboard._tcp.local.`.
  public var description: String { formatted(.presentation) }

  /// The name as text in the given style.
  public func formatted(_ style: TextStyle) -> String {
    switch style {
    case .presentation:
      guard !isRoot else { return "." }
      return labels.map(Self.presentationLabel).joined(separator: ".") + "."
    case .avahi:
      return labels.map(Self.avahiLabel).joined(separator: ".")
    }
  }

  private static func decimalEscape(_ byte: UInt8) -> String {
    let digits = String(byte)
    return "\\" + String(repeating: "0", count: 3 - digits.count) + digits
  }

  private static func presentationLabel(_ label: [UInt8]) -> String {
    var out = ""
    if let text = String(validating: label, as: UTF8.self) {
      for scalar in text.unicodeScalars {
        switch scalar {
        case ".": out += "\\."
        case "\\": out += "\\\\"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += decimalEscape(UInt8(scalar.value))
        default: out.unicodeScalars.append(scalar)
        }
      }
    } else {
      for byte in label {
        switch byte {
        case UInt8(ascii: "."): out += "\\."
        case UInt8(ascii: "\\"): out += "\\\\"
        case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(byte))
        default: out += decimalEscape(byte)
        }
      }
    }
    return out
  }

  private static func avahiLabel(_ label: [UInt8]) -> String {
    var out = ""
    for byte in label {
      switch byte {
      case UInt8(ascii: "."): out += "\\."
      case UInt8(ascii: "\\"): out += "\\\\"
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default: out += decimalEscape(byte)
      }
    }
    return out
  }
}
