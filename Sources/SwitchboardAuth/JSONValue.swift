import SwitchboardWire

/// A JSON value as a token's header and payload hold it (RFC 8259).
///
/// Numbers are `Double`s: NumericDate claims are seconds since 1970, exact up to 2^53. Objects
/// keep no member order and, as ``JSONParser`` reads them, no duplicate names.
public enum JSONValue: Sendable, Hashable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  /// The string, if this is one.
  public var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  /// The number, if this is one.
  public var numberValue: Double? {
    if case .number(let n) = self { return n }
    return nil
  }

  /// Compact JSON text; object members sorted by name, so equal values encode equally.
  /// Numbers that are whole and below 2^53 are written without a fraction; a non-finite
  /// number (which JSON cannot express) is written as `null`.
  public func encoded() -> String {
    var out = ""
    write(to: &out)
    return out
  }

  private func write(to out: inout String) {
    switch self {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .number(let n):
      if !n.isFinite {
        out += "null"
      } else if n == n.rounded(), abs(n) < 9_007_199_254_740_992 {
        out += String(Int64(n))
      } else {
        out += "\(n)"
      }
    case .string(let s): out += JSONDialect.quote(s)
    case .array(let items):
      out += "["
      for (index, item) in items.enumerated() {
        if index > 0 { out += "," }
        item.write(to: &out)
      }
      out += "]"
    case .object(let members):
      out += "{"
      for (index, key) in members.keys.sorted().enumerated() {
        if index > 0 { out += "," }
        out += JSONDialect.quote(key)
        out += ":"
        members[key]!.write(to: &out)
      }
      out += "}"
    }
  }
}
