import SwitchboardWire

/// One entry of a token's `rooms` claim: a room name, or a pattern with `*` wildcards.
///
/// The rule: a pattern is 1–64 characters, each a room-name character (a letter, a digit,
/// `-`, `_`, `.`: the hub's rule, `RoomName`) or `*`. `*` matches any run of characters, the
/// empty run included; every other character matches itself, case-sensitively (room names
/// are). The whole room
/// name must match: `team-*` matches `team-a` and `team-`, not `team` or `my-team-a`;
/// `*-ops` matches `red-ops`; `*` matches every room. There is no `?`, no character class
/// and no escape (room names cannot contain `*`, so none is needed).
///
/// Matching takes time linear in the pattern times the name at worst (no backtracking
/// blow-up however many `*`s), and room names are at most 64 characters.
public struct RoomPattern: Sendable, Hashable, CustomStringConvertible {
  /// The pattern as written, in Unicode Normalization Form C (``RoomName/canonical(_:)``).
  public let text: String
  private let scalars: [Unicode.Scalar]

  /// The longest pattern accepted, in characters (the longest room name).
  public static let maxLength = 64

  /// Validates a pattern; `nil` when it breaks the rule (empty, too long, other characters).
  public init?(_ text: String) {
    // In the spelling room names are kept in (NFC), so `\u{212A}ey` in a token matches the
    // room `Key` everywhere.
    let text = RoomName.canonical(text)
    // A `*` stands for room-name characters, so with each one replaced by a letter a valid
    // pattern is a valid room name: the hub's rule, not a copy of it.
    guard RoomName.validate(text.replacing("*", with: "x")) != nil else { return nil }
    let scalars = Array(text.unicodeScalars)
    self.text = text
    self.scalars = scalars
  }

  /// Whether the pattern has a `*` (otherwise it names exactly one room).
  public var isWildcard: Bool { scalars.contains("*") }

  /// Whether `room` matches the whole pattern.
  public func matches(_ room: String) -> Bool {
    let name = Array(room.unicodeScalars)
    // Greedy glob with one remembered star: on a mismatch, let the last `*` eat one more
    // character and retry from there. Earlier stars never need revisiting.
    var p = 0
    var n = 0
    var star: Int? = nil
    var starMatch = 0
    while n < name.count {
      if p < scalars.count, scalars[p] != "*", scalars[p] == name[n] {
        p += 1
        n += 1
      } else if p < scalars.count, scalars[p] == "*" {
        star = p
        starMatch = n
        p += 1
      } else if let s = star {
        p = s + 1
        starMatch += 1
        n = starMatch
      } else {
        return false
      }
    }
    while p < scalars.count, scalars[p] == "*" { p += 1 }
    return p == scalars.count
  }

  /// Whether any of `patterns` matches `room`.
  public static func any(_ patterns: [RoomPattern], match room: String) -> Bool {
    patterns.contains { $0.matches(room) }
  }

  /// The pattern as written.
  public var description: String { text }

  public static func == (lhs: RoomPattern, rhs: RoomPattern) -> Bool { lhs.text == rhs.text }
  public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
