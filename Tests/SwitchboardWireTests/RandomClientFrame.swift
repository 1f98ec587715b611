import SwitchboardTestSupport
import SwitchboardWire

/// Random text frames for the JSON protocol's parser, from a seeded generator: objects
/// shaped like client frames with fields of every JSON type (so each case of
/// ``ClientFrame`` comes up), some of them mangled a few bytes at a time (syntax errors),
/// and random text from JSON's alphabet.
enum RandomClientFrame {
  static func text(_ rng: inout SeededGenerator) -> String {
    var text: String
    switch rng.next() % 10 {
    case 0, 1: text = noise(&rng)
    case 2, 3: text = mangle(frame(&rng), &rng)
    default: text = frame(&rng)
    }
    if rng.next() % 8 == 0 { text = [" ", "\n", "\t ", "\r\n"][Int(rng.next() % 4)] + text }
    return text
  }

  /// Characters JSON is made of, and a few it is not.
  private static let alphabet = Array(
    #"{}[]":,\ type data message join text ref since 0123456789.-etrufnlé👋"#)

  private static func noise(_ rng: inout SeededGenerator) -> String {
    String((0..<Int(rng.next() % 60)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
  }

  /// Deletes, inserts or replaces a few bytes (possibly splitting a UTF-8 sequence).
  private static func mangle(_ text: String, _ rng: inout SeededGenerator) -> String {
    var bytes = Array(text.utf8)
    for _ in 0...(rng.next() % 3) where !bytes.isEmpty {
      let at = Int(rng.next() % UInt64(bytes.count))
      let byte = Array(String(alphabet[Int(rng.next() % UInt64(alphabet.count))]).utf8)[0]
      switch rng.next() % 3 {
      case 0: bytes.remove(at: at)
      case 1: bytes.insert(byte, at: at)
      default: bytes[at] = byte
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// `{"type":…,"data":…}`, mostly with the fields a client sends.
  private static func frame(_ rng: inout SeededGenerator) -> String {
    var fields: [String] = []
    switch rng.next() % 8 {
    case 0...2: fields.append(#""type":"message""#)
    case 3...5: fields.append(#""type":"join""#)
    case 6: fields.append(#""type":"# + value(&rng, depth: 1))
    default: break
    }
    switch rng.next() % 6 {
    case 0: fields.append(#""data":"# + string(&rng))
    case 1: fields.append(#""data":"# + value(&rng, depth: 1))
    case 2: break
    default: fields.append(#""data":"# + data(&rng))
    }
    if rng.next() % 6 == 0 { fields.append(#""extra":"# + value(&rng, depth: 1)) }
    fields.shuffle(using: &rng)
    return "{" + fields.joined(separator: ",") + "}"
  }

  /// The `data` object: each field usually there, usually of the type the protocol wants.
  private static func data(_ rng: inout SeededGenerator) -> String {
    let fields: [(name: String, wellTyped: (inout SeededGenerator) -> String, otherTypeOneIn: UInt64)] = [
      ("text", string, 4), ("ref", scalar, 3), ("name", string, 4),
      ("room", roomName, 3), ("since", count, 3), ("epoch", string, 3),
    ]
    var present: [String] = []
    for field in fields where rng.next() % 3 != 0 {
      let json = rng.next() % field.otherTypeOneIn == 0 ? value(&rng, depth: 1) : field.wellTyped(&rng)
      present.append("\"\(field.name)\":" + json)
    }
    present.shuffle(using: &rng)
    return "{" + present.joined(separator: ",") + "}"
  }

  private static func value(_ rng: inout SeededGenerator, depth: Int) -> String {
    switch rng.next() % (depth < 3 ? 9 : 7) {
    case 0: return string(&rng)
    case 1: return count(&rng)
    case 2: return ["-1", "-0", "1.5", "1e3", "2.5e-3", "1e400", "-1e400", "0.0"][Int(rng.next() % 8)]
    case 3: return rng.next() % 2 == 0 ? "true" : "false"
    case 4: return "null"
    case 5: return roomName(&rng)
    case 6: return scalar(&rng)
    case 7:
      return "[" + (0..<Int(rng.next() % 3)).map { _ in value(&rng, depth: depth + 1) }.joined(separator: ",")
        + "]"
    default: return #"{"k":"# + value(&rng, depth: depth + 1) + "}"
    }
  }

  private static func scalar(_ rng: inout SeededGenerator) -> String {
    rng.next() % 2 == 0 ? string(&rng) : String(Int64(bitPattern: rng.next()) % 1_000_000)
  }

  /// A non-negative integer: small, large, or near the limits of UInt64 and Double.
  private static func count(_ rng: inout SeededGenerator) -> String {
    switch rng.next() % 5 {
    case 0: return "0"
    case 1: return String(rng.next() % 100)
    case 2: return String(rng.next() % 1_000_000_000_000)
    case 3:
      return ["9007199254740993", "18446744073709551615", "18446744073709551616", "1e19"][Int(rng.next() % 4)]
    default: return String(rng.next() >> UInt64(rng.next() % 64))
    }
  }

  /// A JSON string: letters, spaces, escapes, controls, non-ASCII.
  private static func string(_ rng: inout SeededGenerator) -> String {
    let pieces = [
      "a", "Zoë", " ", "\\\"", "\\\\", "\\n", "\\t", "\\u0001", "\\u00e9", "\\ud83d\\udc4b", "日本", "👋🏽", "/",
      "\\/", "{", "]",
    ]
    return "\""
      + (0..<Int(rng.next() % 8)).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined() + "\""
  }

  /// A room name, valid (letters, digits, `-_.`, at most 64) or not (spaces, too long, empty).
  private static func roomName(_ rng: inout SeededGenerator) -> String {
    let pieces = ["dev", "lobby", "-", "_", ".", "7", "é", "Ω", "a b", "", String(repeating: "x", count: 60)]
    return "\""
      + (0..<Int(1 + rng.next() % 3)).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined()
      + "\""
  }
}
