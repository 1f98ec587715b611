/// Number formatting without Foundation.
enum Format {
  static func fixed(_ v: Double, _ digits: Int) -> String {
    guard v.isFinite else { return "\(v)" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let negative = v < 0
    let r = (abs(v) * scale).rounded()
    let whole = Int(r / scale)
    var s = (negative && r != 0 ? "-" : "") + "\(whole)"
    if digits > 0 {
      let frac = Int(r - Double(whole) * scale)
      let fs = String(frac)
      s += "." + String(repeating: "0", count: max(0, digits - fs.count)) + fs
    }
    return s
  }

  /// A JSON number: integers without a point, others with up to 3 decimals.
  static func number(_ v: Double) -> String {
    guard v.isFinite else { return "null" }
    if v == v.rounded() && abs(v) < 1e15 { return "\(Int(v))" }
    return fixed(v, 3)
  }

  /// A count, with k/M suffixes from 10,000 up.
  static func count(_ v: Double) -> String {
    if v >= 10_000_000 { return fixed(v / 1e6, 1) + "M" }
    if v >= 10_000 { return fixed(v / 1e3, 1) + "k" }
    return fixed(v, 0)
  }

  /// Nanoseconds shown as µs or ms.
  static func micros(_ ns: UInt64) -> String {
    let us = Double(ns) / 1e3
    if us >= 10_000 { return fixed(us / 1e3, 1) + " ms" }
    if us >= 1_000 { return fixed(us / 1e3, 2) + " ms" }
    if us >= 100 { return fixed(us, 0) + " µs" }
    return fixed(us, 1) + " µs"
  }

  static func millis(_ ns: UInt64) -> String {
    fixed(Double(ns) / 1e6, 2) + " ms"
  }

  static func quote(_ s: String) -> String {
    var out = "\""
    for ch in s.unicodeScalars {
      switch ch {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      default:
        if ch.value < 0x20 { out += "\\u00" + (ch.value < 16 ? "0" : "") + String(ch.value, radix: 16) } else { out.unicodeScalars.append(ch) }
      }
    }
    return out + "\""
  }
}
