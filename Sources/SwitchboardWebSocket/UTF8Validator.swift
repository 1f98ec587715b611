/// An incremental UTF-8 validator (a DFA over bytes) that fails fast.
///
/// It rejects a byte the moment the input can no longer be valid UTF-8 — overlong
/// forms, surrogates (U+D800–U+DFFF), code points above U+10FFFF, stray continuation
/// bytes — even when a code point is split across fragments. ``isComplete`` says
/// whether the input so far ends on a code point boundary, which a finished text
/// message must.
public struct UTF8Validator: Sendable, Hashable {
  // States: 0 accept, 1 reject, 2 one continuation byte left, 3 two left, 4 after E0
  // (next A0–BF), 5 after ED (next 80–9F), 6 three left, 7 after F0 (next 90–BF),
  // 8 after F4 (next 80–8F).
  private static let accept: UInt8 = 0
  private static let reject: UInt8 = 1
  private static let stateCount = 9

  /// The transition table, `state * 256 + byte`.
  private static let table: [UInt8] = {
    var t = [UInt8](repeating: reject, count: stateCount * 256)
    func set(_ state: Int, _ range: ClosedRange<Int>, _ next: Int) {
      for byte in range { t[state * 256 + byte] = UInt8(next) }
    }
    set(0, 0x00...0x7F, 0)
    set(0, 0xC2...0xDF, 2)
    set(0, 0xE0...0xE0, 4)
    set(0, 0xE1...0xEC, 3)
    set(0, 0xED...0xED, 5)
    set(0, 0xEE...0xEF, 3)
    set(0, 0xF0...0xF0, 7)
    set(0, 0xF1...0xF3, 6)
    set(0, 0xF4...0xF4, 8)
    set(2, 0x80...0xBF, 0)
    set(3, 0x80...0xBF, 2)
    set(4, 0xA0...0xBF, 2)
    set(5, 0x80...0x9F, 2)
    set(6, 0x80...0xBF, 3)
    set(7, 0x90...0xBF, 3)
    set(8, 0x80...0x8F, 3)
    return t
  }()

  private var state: UInt8 = 0

  /// Creates a validator at the start of a (new) message.
  public init() {}

  /// Whether no invalid sequence has been seen.
  public var isValid: Bool { state != Self.reject }

  /// Whether the input so far is valid and ends on a complete code point.
  public var isComplete: Bool { state == Self.accept }

  /// Starts over for a new message.
  public mutating func reset() { state = Self.accept }

  /// Validates the next chunk of input.
  /// - Returns: `false` as soon as the input (including earlier chunks) can no longer
  ///   be valid UTF-8; `true` if it is valid so far (possibly mid code point).
  @discardableResult
  public mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var s = state
    guard s != Self.reject else { return false }
    let count = bytes.count
    guard count > 0, let base = bytes.baseAddress else { return true }
    var i = 0
    Self.table.withUnsafeBufferPointer { table in
      while i < count {
        if s == Self.accept {
          // ASCII fast path: skip eight bytes at a time while none has the high bit set.
          while i + 8 <= count
            && base.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
          {
            i += 8
          }
          if i == count { break }
        }
        s = table[Int(s) &* 256 &+ Int(base.load(fromByteOffset: i, as: UInt8.self))]
        if s == Self.reject { break }
        i += 1
      }
    }
    state = s
    return s != Self.reject
  }

  /// Validates the next chunk of input.
  /// - Returns: `false` once the input can no longer be valid UTF-8.
  @discardableResult
  public mutating func validate(_ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { validate($0) }
  }

  /// Whether `bytes` is a complete, valid UTF-8 string.
  public static func isValid(_ bytes: [UInt8]) -> Bool {
    var validator = UTF8Validator()
    return validator.validate(bytes) && validator.isComplete
  }

  /// Whether `bytes` is a complete, valid UTF-8 string.
  public static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var validator = UTF8Validator()
    return validator.validate(bytes) && validator.isComplete
  }
}
