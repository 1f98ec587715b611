/// Why the hub refuses a name a member asked for, or the line dialect an action: each one a
/// way the member's lines could be read as a notice, an error or another author's
/// (docs/PROTOCOLS.md, "Names and actions that read as notices").
public enum NameRefusal: Error, Sendable, Equatable {
  /// Nothing visible is left once trimmed and cleaned of controls.
  case empty
  /// Starts with `*`, `!` or `[`: a message would read as a notice (`* `), an error (`! `)
  /// or a history line (`[ID] `).
  case marker(Character)
  /// Holds `: `: `ceo: x` would make every message read as the author `ceo`'s.
  case colonSpace
  /// Its first word is one a server notice starts with (`server`, `you`, `in`, …), so an
  /// action (`* server is going away …`) would read as that notice.
  case noticeWord(String)
  /// Is the seed's UDP echo prefix (`Server received`): a message would read as an echo.
  case echoPrefix
  /// An action (`/me`) whose line would read as presence: `* NAME has joined`,
  /// `* NAME has left`, `* NAME is now OTHER`, or as a typing notice: `* NAME is typing`.
  case actionReadsAsPresence

  /// The answer, after `! ` on the line dialect and in a JSON `error` frame's message.
  public var answer: String {
    switch self {
    case .empty: "a name needs at least one visible character"
    case .marker(let c): "a name may not start with \(c) (it would read as a notice, an error or history)"
    case .colonSpace: "a name may not contain \": \" (it would read as another author's line)"
    case .noticeWord(let word): "a name may not start with the word \(word) (the server's notices do)"
    case .echoPrefix: "a name may not start with Server received (the UDP echo does)"
    case .actionReadsAsPresence:
      "an action may not end with \"has joined\", \"has left\" or \"is typing\" or contain \"is now\" (it would read as presence); send it as a message"
    }
  }
}
