import Foundation

/// Room name rules shared by every dialect, the token `rooms` patterns and the brokers.
///
/// A room name is 1–64 Unicode scalars, each a letter (General_Category `L*`: `Lu`, `Ll`,
/// `Lt`, `Lm`, `Lo`), a decimal digit (`Nd`) or one of `-` `_` `.`, taken in Unicode
/// Normalization Form C, where a letter may carry up to ``maxMarksPerLetter`` combining marks
/// (`Mn`, `Mc`) after it: the vowel signs and viramas of Devanagari, Thai, Bengali or Tamil,
/// without which those scripts cannot write a word. Everything else is refused: a mark that
/// follows no letter, or a third in a row (stacked accents), enclosing marks (`Me`), other
/// numbers such as `½` and `①` (`No`, `Nl`), symbols, punctuation, spaces and controls.
///
/// Canonically equivalent spellings are one room: ``validate(_:)`` returns the NFC form, and
/// every way a room name enters (a line `/join`, a JSON `join`, `/rooms/NAME`, `--room`, a
/// token's `rooms` patterns) goes through it, so the hub, the history store's rows and the
/// Redis keys all see one spelling (`\u{212A}ey`, KELVIN SIGN, is `Key`).
public enum RoomName {
  /// The longest room name, in Unicode scalars after normalization.
  public static let maxLength = 64

  /// Names longer than this many UTF-8 bytes are refused before they are normalized (64
  /// scalars are at most 256 bytes; normalization never shrinks a valid name by 4×).
  static let maxRawBytes = 1024

  /// Combining marks one letter may carry (after composition). Two is what the scripts
  /// that need marks use (a Thai consonant with a vowel and a tone mark, a Devanagari
  /// conjunct's virama or a vowel sign with a nasal sign); more is stacking for its own sake.
  public static let maxMarksPerLetter = 2

  /// The name in its one spelling (NFC) if it is a room name (1–64 letters with their marks,
  /// digits, `-`, `_`, `.`), else `nil`.
  public static func validate(_ raw: String) -> String? {
    guard !raw.isEmpty, raw.utf8.count <= maxRawBytes else { return nil }
    let name = canonical(raw)
    var count = 0
    // Marks since the last letter; `nil` when the last scalar was no letter (a mark there
    // has nothing to sit on).
    var marks: Int? = nil
    for scalar in name.unicodeScalars {
      count += 1
      guard count <= maxLength else { return nil }
      switch scalar.properties.generalCategory {
      case .nonspacingMark, .spacingMark:
        guard let seen = marks, seen < maxMarksPerLetter else { return nil }
        marks = seen + 1
      case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter:
        marks = 0
      default:
        guard isAllowed(scalar) else { return nil }
        marks = nil
      }
    }
    return count > 0 ? name : nil
  }

  /// `raw` in Unicode Normalization Form C (ASCII is returned as is). What ``validate(_:)``
  /// checks and returns; token patterns use it too, so a pattern and a name are compared
  /// in one spelling.
  public static func canonical(_ raw: String) -> String {
    raw.utf8.allSatisfy { $0 < 0x80 } ? raw : raw.precomposedStringWithCanonicalMapping
  }

  /// A letter (`L*`), a decimal digit (`Nd`), `-`, `_` or `.`.
  static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber:
      return true
    default:
      return scalar == "-" || scalar == "_" || scalar == "."
    }
  }
}
