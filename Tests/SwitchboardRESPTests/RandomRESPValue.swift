import SwitchboardRESP
import SwitchboardTestSupport

/// Random RESP values of every type, nested up to `depth`, for round-trip tests. Doubles are
/// never NaN (NaN is not equal to itself; `RESPDecoderTests` checks it on its own).
enum RandomRESPValue {
  static func make(depth: Int, _ random: inout SeededGenerator) -> RESPValue {
    let scalarKinds = 11
    let kind = Int.random(in: 0..<(depth > 0 ? scalarKinds + 6 : scalarKinds), using: &random)
    func text() -> String {
      let letters = Array("abcXYZ019 _-:*$".utf8)
      let count = Int.random(in: 0...12, using: &random)
      return String(decoding: (0..<count).map { _ in letters.randomElement(using: &random)! }, as: UTF8.self)
    }
    func blob() -> [UInt8] {
      (0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
    }
    func children() -> [RESPValue] {
      (0..<Int.random(in: 0...4, using: &random)).map { _ in make(depth: depth - 1, &random) }
    }
    func pairs() -> [RESPPair] {
      (0..<Int.random(in: 0...3, using: &random)).map { _ in
        RESPPair(key: make(depth: depth - 1, &random), value: make(depth: depth - 1, &random))
      }
    }
    switch kind {
    case 0: return .simpleString(text())
    case 1: return .error("ERR " + text())
    case 2: return .integer(Int64.random(in: .min ... .max, using: &random))
    case 3: return .bulkString(blob())
    case 4: return .null
    case 5:
      return .double(
        [0, -1.5, 1e300, -.infinity, .infinity, Double.random(in: -1e6...1e6, using: &random)].randomElement(
          using: &random)!)
    case 6: return .boolean(Bool.random(using: &random))
    case 7:
      return .bigNumber(
        (Bool.random(using: &random) ? "-" : "") + String(UInt64.random(in: 0 ... .max, using: &random))
          + "123456789")
    case 8: return .verbatimString(format: ["txt", "mkd"].randomElement(using: &random)!, text: blob())
    case 9: return .bulkError(Array(("SYNTAX " + text()).utf8))
    case 10: return .integer(Int64.random(in: -3...3, using: &random))
    case 11: return .array(children())
    case 12: return .map(pairs())
    case 13: return .set(children())
    case 14: return .push(children())
    case 15: return .attribute(pairs(), make(depth: depth - 1, &random))
    default: return .array([])
    }
  }
}
