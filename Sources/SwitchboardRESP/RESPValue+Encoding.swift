extension RESPValue {
  /// The value in RESP3 wire form (RESP2's types encode as RESP2 writes them; `null` is
  /// RESP3's `_`). Decoding the bytes gives back an equal value.
  public var encoded: [UInt8] {
    var bytes: [UInt8] = []
    encode(into: &bytes)
    return bytes
  }

  /// Appends the value's wire form to `bytes`.
  public func encode(into bytes: inout [UInt8]) {
    switch self {
    case .simpleString(let text): Self.line(UInt8(ascii: "+"), text, into: &bytes)
    case .error(let text): Self.line(UInt8(ascii: "-"), text, into: &bytes)
    case .integer(let value): Self.line(UInt8(ascii: ":"), String(value), into: &bytes)
    case .bulkString(let data): Self.blob(UInt8(ascii: "$"), data, into: &bytes)
    case .bulkError(let data): Self.blob(UInt8(ascii: "!"), data, into: &bytes)
    case .verbatimString(let format, let text):
      let head =
        Array(format.utf8.prefix(3))
        + Array(repeating: UInt8(ascii: " "), count: max(0, 3 - format.utf8.count))
      Self.blob(UInt8(ascii: "="), head + [UInt8(ascii: ":")] + text, into: &bytes)
    case .null: bytes += [UInt8(ascii: "_"), 0x0D, 0x0A]
    case .double(let value):
      let text = value.isNaN ? "nan" : value.isInfinite ? (value < 0 ? "-inf" : "inf") : "\(value)"
      Self.line(UInt8(ascii: ","), text, into: &bytes)
    case .boolean(let value): Self.line(UInt8(ascii: "#"), value ? "t" : "f", into: &bytes)
    case .bigNumber(let digits): Self.line(UInt8(ascii: "("), digits, into: &bytes)
    case .array(let values): Self.aggregate(UInt8(ascii: "*"), values, into: &bytes)
    case .set(let values): Self.aggregate(UInt8(ascii: "~"), values, into: &bytes)
    case .push(let values): Self.aggregate(UInt8(ascii: ">"), values, into: &bytes)
    case .map(let pairs):
      Self.line(UInt8(ascii: "%"), String(pairs.count), into: &bytes)
      for pair in pairs {
        pair.key.encode(into: &bytes)
        pair.value.encode(into: &bytes)
      }
    case .attribute(let pairs, let value):
      Self.line(UInt8(ascii: "|"), String(pairs.count), into: &bytes)
      for pair in pairs {
        pair.key.encode(into: &bytes)
        pair.value.encode(into: &bytes)
      }
      value.encode(into: &bytes)
    }
  }

  private static func line(_ type: UInt8, _ text: String, into bytes: inout [UInt8]) {
    bytes.append(type)
    bytes += text.utf8
    bytes += [0x0D, 0x0A]
  }

  private static func blob(_ type: UInt8, _ data: [UInt8], into bytes: inout [UInt8]) {
    line(type, String(data.count), into: &bytes)
    bytes += data
    bytes += [0x0D, 0x0A]
  }

  private static func aggregate(_ type: UInt8, _ values: [RESPValue], into bytes: inout [UInt8]) {
    line(type, String(values.count), into: &bytes)
    for value in values { value.encode(into: &bytes) }
  }
}
