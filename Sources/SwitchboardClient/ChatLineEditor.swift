/// The input line of a terminal chat, fed one byte at a time as a raw-mode terminal sends
/// them: the text, the cursor in it and the history of sent lines. Pure state, no terminal:
/// `switchboard chat` feeds it stdin's bytes and draws ``text`` with the cursor at
/// ``cursor``.
///
/// Keys: printable text (UTF-8) is inserted at the cursor; Left/Right (and Ctrl-B/Ctrl-F)
/// move by one character, Home/End (and Ctrl-A/Ctrl-E) to either end; Backspace deletes
/// before the cursor, Delete (and Ctrl-D on a line with text) at it; Ctrl-U deletes to the
/// start, Ctrl-K to the end; Up/Down walk the history of sent lines (the line being written
/// is kept and comes back below the newest); Enter sends; Ctrl-C, and Ctrl-D on an empty
/// line, quit. Other controls and escape sequences are ignored.
public struct ChatLineEditor: Sendable {
  /// What a byte did.
  public enum Outcome: Sendable, Equatable {
    /// Nothing visible (part of a sequence, or an ignored key).
    case none
    /// The text or the cursor changed: draw again.
    case edited
    /// Enter: the line to send (the editor is empty again). An empty line is handed on too;
    /// ``ChatInput`` calls it `empty`.
    case submit(String)
    /// Ctrl-C, or Ctrl-D on an empty line.
    case quit
  }

  /// Where an escape sequence is.
  private enum Escape: Sendable {
    case none
    /// ESC seen.
    case started
    /// `ESC [` or `ESC O` seen, and these parameter bytes since.
    case sequence(ss3: Bool, parameters: [UInt8])
  }

  /// The line, as characters (what Left and Backspace step over).
  public private(set) var characters: [Character] = []
  /// The cursor: how many characters are before it (0 … `characters.count`).
  public private(set) var cursor = 0
  /// The lines sent, oldest first (an empty line and a repeat of the newest are not kept).
  public private(set) var history: [String] = []
  /// The most lines ``history`` keeps.
  public let maxHistory: Int

  /// Which history entry is shown (`nil`: the line being written).
  private var historyIndex: Int?
  /// The line being written, kept while Up shows older ones.
  private var draft: [Character] = []
  private var escape = Escape.none
  /// The bytes of a UTF-8 sequence not yet complete.
  private var utf8: [UInt8] = []

  /// An empty editor keeping up to `maxHistory` sent lines.
  public init(maxHistory: Int = 500) {
    self.maxHistory = max(0, maxHistory)
  }

  /// The line as a string.
  public var text: String { String(characters) }

  /// Feeds one byte from the terminal.
  public mutating func feed(_ byte: UInt8) -> Outcome {
    switch escape {
    case .none:
      break
    case .started:
      if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "O") {
        escape = .sequence(ss3: byte == UInt8(ascii: "O"), parameters: [])
        return .none
      }
      escape = .none
      return .none
    case .sequence(let isSS3, var parameters):
      // Parameter and intermediate bytes go on; a final byte (0x40–0x7E) ends the sequence.
      guard (0x40...0x7E).contains(byte) else {
        parameters.append(byte)
        escape = parameters.count > 16 ? .none : .sequence(ss3: isSS3, parameters: parameters)
        return .none
      }
      escape = .none
      return key(final: byte, parameters: String(decoding: parameters, as: UTF8.self))
    }
    if !utf8.isEmpty || byte >= 0x80 { return feedUTF8(byte) }
    switch byte {
    case 0x1B:
      escape = .started
      return .none
    case 0x0D, 0x0A: return submit()
    case 0x03: return .quit
    case 0x04: return characters.isEmpty ? .quit : deleteForward()
    case 0x7F, 0x08: return deleteBackward()
    case 0x01: return move(to: 0)
    case 0x05: return move(to: characters.count)
    case 0x02: return move(to: cursor - 1)
    case 0x06: return move(to: cursor + 1)
    case 0x15:
      guard cursor > 0 else { return .none }
      characters.removeSubrange(0..<cursor)
      cursor = 0
      return .edited
    case 0x0B:
      guard cursor < characters.count else { return .none }
      characters.removeSubrange(cursor...)
      return .edited
    case 0x09: return insert(" ")
    case 0x20...0x7E: return insert(Character(Unicode.Scalar(byte)))
    default: return .none
    }
  }

  /// Feeds every byte; the outcomes that were not ``Outcome/none``.
  public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Outcome] {
    bytes.map { feed($0) }.filter { $0 != .none }
  }

  // MARK: Keys

  private mutating func key(final: UInt8, parameters: String) -> Outcome {
    switch (final, parameters) {
    case (UInt8(ascii: "A"), _): return recall(older: true)
    case (UInt8(ascii: "B"), _): return recall(older: false)
    case (UInt8(ascii: "C"), _): return move(to: cursor + 1)
    case (UInt8(ascii: "D"), _): return move(to: cursor - 1)
    case (UInt8(ascii: "H"), _), (UInt8(ascii: "~"), "1"), (UInt8(ascii: "~"), "7"): return move(to: 0)
    case (UInt8(ascii: "F"), _), (UInt8(ascii: "~"), "4"), (UInt8(ascii: "~"), "8"):
      return move(to: characters.count)
    case (UInt8(ascii: "~"), "3"): return deleteForward()
    default: return .none
    }
  }

  private mutating func feedUTF8(_ byte: UInt8) -> Outcome {
    utf8.append(byte)
    let lead = utf8[0]
    // A byte that cannot lead a sequence (a stray continuation, 0xC0, 0xC1, 0xF5 …) is one.
    let length =
      switch lead {
      case 0xC2...0xDF: 2
      case 0xE0...0xEF: 3
      case 0xF0...0xF4: 4
      default: 1
      }
    guard utf8.count >= length else { return .none }
    defer { utf8 = [] }
    // Invalid UTF-8 becomes U+FFFD (as the server would make of it), never a lost key.
    let decoded = String(decoding: utf8, as: UTF8.self)
    var outcome = Outcome.none
    for character in decoded { outcome = insert(character) }
    return outcome
  }

  private mutating func insert(_ character: Character) -> Outcome {
    characters.insert(character, at: cursor)
    // A combining mark joins the character before it: the array is rebuilt so that it holds
    // what the string holds, and the cursor stays after what was typed.
    let before = String(characters[..<(cursor + 1)]).count
    characters = Array(String(characters))
    cursor = min(before, characters.count)
    historyIndex = nil
    return .edited
  }

  private mutating func move(to position: Int) -> Outcome {
    let clamped = min(max(0, position), characters.count)
    guard clamped != cursor else { return .none }
    cursor = clamped
    return .edited
  }

  private mutating func deleteBackward() -> Outcome {
    guard cursor > 0 else { return .none }
    characters.remove(at: cursor - 1)
    cursor -= 1
    return .edited
  }

  private mutating func deleteForward() -> Outcome {
    guard cursor < characters.count else { return .none }
    characters.remove(at: cursor)
    return .edited
  }

  private mutating func submit() -> Outcome {
    let line = text
    if !line.allSatisfy(\.isWhitespace), history.last != line {
      history.append(line)
      if history.count > maxHistory { history.removeFirst(history.count - maxHistory) }
    }
    characters = []
    cursor = 0
    draft = []
    historyIndex = nil
    return .submit(line)
  }

  /// Up (`older`) or Down through the history.
  private mutating func recall(older: Bool) -> Outcome {
    let index: Int?
    switch (historyIndex, older) {
    case (nil, true):
      guard !history.isEmpty else { return .none }
      draft = characters
      index = history.count - 1
    case (nil, false):
      return .none
    case (let i?, true):
      guard i > 0 else { return .none }
      index = i - 1
    case (let i?, false):
      index = i + 1 < history.count ? i + 1 : nil
    }
    historyIndex = index
    characters = index.map { Array(history[$0]) } ?? draft
    cursor = characters.count
    return .edited
  }
}
