/// A cursor over a fuzz input for structure-aware harnesses: the first bytes choose
/// options (a limit, a role, where to cut), the rest is the data.
public struct FuzzBytes: Sendable {
  private let bytes: [UInt8]
  private var index = 0

  /// A cursor at the start of `bytes`.
  public init(_ bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// The next byte, or 0 when none is left.
  public mutating func byte() -> UInt8 {
    guard index < bytes.count else { return 0 }
    defer { index += 1 }
    return bytes[index]
  }

  /// One of `choices`, picked by the next byte.
  public mutating func pick<T>(_ choices: [T]) -> T {
    choices[Int(byte()) % choices.count]
  }

  /// The bytes up to the next `separator` (which is consumed), or all that is left.
  public mutating func field(separator: UInt8 = 0) -> [UInt8] {
    let rest = bytes[index...]
    let end = rest.firstIndex(of: separator) ?? bytes.endIndex
    defer { index = min(end + 1, bytes.count) }
    return Array(bytes[index..<end])
  }

  /// Whether nothing is left.
  public var isAtEnd: Bool { index >= bytes.count }

  /// Every byte not yet taken (the cursor moves to the end).
  public mutating func rest() -> [UInt8] {
    defer { index = bytes.count }
    return Array(bytes[index...])
  }
}
