import SwitchboardTestSupport

/// Random texts for holding the client-frame decoder to `JSONSerialization`: objects with
/// the protocol's members and others, values of every JSON type written every way JSON
/// (and Foundation's parser) allows or nearly allows — escaped names, surrogate escapes
/// paired and lone, raw controls, numbers at the edges of `Int64`, `UInt64` and `Double`,
/// trailing commas, duplicate members, nesting around Foundation's depth limit — some of
/// them mangled a byte at a time. From a seeded generator, so a failure replays.
enum JSONRandomText {
  static func text(_ rng: inout SeededGenerator) -> String {
    var text = object(&rng, depth: 1)
    if rng.next() % 4 == 0 { text = mangle(text, &rng) }
    if rng.next() % 8 == 0 { text = [" ", "\n", "\t", "\r\n "][Int(rng.next() % 4)] + text }
    if rng.next() % 8 == 0 { text += [" ", "\n", "x", ",", "}", "\u{0}"][Int(rng.next() % 6)] }
    return text
  }

  /// Member names: the protocol's, escaped spellings of them, and others.
  private static let names = [
    "type", "data", "text", "ref", "name", "room", "since", "epoch", #"t\u0079pe"#, #"d\u0061ta"#,
    #"\u0074ext"#, "extra", "Type", "typé", "", #"a\"b"#,
  ]

  private static func object(_ rng: inout SeededGenerator, depth: Int) -> String {
    var members: [String] = []
    if depth == 1 {
      if rng.next() % 6 != 0 { members.append(#""type":"# + typeValue(&rng)) }
      if rng.next() % 5 != 0 {
        members.append(#""data":"# + (rng.next() % 3 == 0 ? value(&rng, depth: 2) : object(&rng, depth: 2)))
      }
    }
    for _ in 0..<Int(rng.next() % 4) {
      members.append(
        "\"" + names[Int(rng.next() % UInt64(names.count))] + "\":" + value(&rng, depth: depth + 1))
    }
    members.shuffle(using: &rng)
    let separator = [",", ", ", " ,\n"][Int(rng.next() % 3)]
    var body = members.joined(separator: separator)
    if !members.isEmpty && rng.next() % 10 == 0 { body += "," }  // one trailing comma
    return "{" + body + "}"
  }

  private static func typeValue(_ rng: inout SeededGenerator) -> String {
    switch rng.next() % 8 {
    case 0...2: return #""message""#
    case 3...4: return #""join""#
    case 5: return #""m\u0065ssage""#
    case 6: return string(&rng)
    default: return value(&rng, depth: 2)
    }
  }

  private static func value(_ rng: inout SeededGenerator, depth: Int) -> String {
    switch rng.next() % (depth < 4 ? 10 : 7) {
    case 0, 1: return string(&rng)
    case 2, 3: return number(&rng)
    case 4: return ["true", "false", "null", "nul", "True"][Int(rng.next() % 5)]
    case 5: return nested(&rng)
    case 6: return #""lobby""#
    case 7:
      var items = (0..<Int(rng.next() % 3)).map { _ in value(&rng, depth: depth + 1) }
      if !items.isEmpty && rng.next() % 8 == 0 { items[items.count - 1] += "," }
      return "[" + items.joined(separator: ",") + "]"
    default: return object(&rng, depth: depth)
    }
  }

  /// Arrays and objects nested around Foundation's limit of 512 (the frame's own object
  /// and `data` add one or two).
  private static func nested(_ rng: inout SeededGenerator) -> String {
    let depth = [1, 2, 100, 508, 509, 510, 511, 512][Int(rng.next() % 8)]
    if rng.next() % 2 == 0 {
      return String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }
    return String(repeating: #"{"k":"#, count: depth) + "0" + String(repeating: "}", count: depth)
  }

  private static func number(_ rng: inout SeededGenerator) -> String {
    let edges = [
      "0", "-0", "7", "-7", "00", "01", "-", "1.", ".5", "+1", "1.5", "-1.5", "0.1", "1e3", "1E3", "1e+3",
      "1e-3",
      "2.5e-3", "1.0", "1e", "1e400", "-1e400", "1e-400", "1.7976931348623157e308", "1.7976931348623159e308",
      "999999999999999", "1000000000000000", "9007199254740993", "9223372036854775807", "9223372036854775808",
      "-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
      "17999999999999999999", "1e19", "1.8e19", "123456789012345678901234567890", "0x10", "NaN", "-Infinity",
    ]
    switch rng.next() % 3 {
    case 0: return edges[Int(rng.next() % UInt64(edges.count))]
    case 1: return String(Int64(bitPattern: rng.next()) >> Int64(rng.next() % 64))
    default: return String(rng.next() % 1000) + (rng.next() % 2 == 0 ? "" : "." + String(rng.next() % 1000))
    }
  }

  private static func string(_ rng: inout SeededGenerator) -> String {
    let pieces = [
      "a", "Zoë", " ", #"\""#, #"\\"#, #"\/"#, #"\b"#, #"\f"#, #"\n"#, #"\r"#, #"\t"#, #"\u0000"#, #"\u001f"#,
      #"\u00e9"#, #"\u00E9"#, #"\ud83d\udc4b"#, #"\uD83D\uDC4B"#, #"\ud800"#, #"\udc00"#, #"\ud800\u0041"#,
      #"\ud800\ud800"#, #"\uFFFF"#, #"\u2028"#, #"\u12"#, #"\x"#, #"\U0041"#, "\u{1}", "\u{1f}", "\u{7f}",
      "\u{2028}", "日本", "👋🏽", "{", "]", ":", ",",
    ]
    return "\""
      + (0..<Int(rng.next() % 6)).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined()
      + "\""
  }

  /// Deletes, inserts or replaces one byte (possibly splitting a UTF-8 sequence).
  private static func mangle(_ text: String, _ rng: inout SeededGenerator) -> String {
    var bytes = Array(text.utf8)
    guard !bytes.isEmpty else { return text }
    let at = Int(rng.next() % UInt64(bytes.count))
    let byte = Array(#"{}[]":,\ 0-.eE"tn"#.utf8)[Int(rng.next() % 16)]
    switch rng.next() % 3 {
    case 0: bytes.remove(at: at)
    case 1: bytes.insert(byte, at: at)
    default: bytes[at] = byte
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
