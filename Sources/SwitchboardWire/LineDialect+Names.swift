import SwitchboardHTTP

/// The names and actions the line dialect admits: none can make a member's line read as a
/// notice, an error, an echo, a history line or another author's.
extension LineDialect {
  /// The first word of every `* ` line the server writes itself (replies and notices other
  /// than presence), lowercased. A name may not start with one (``nameRefusal(_:)``), so an
  /// action `* NAME ACTION` never starts as a notice does. A new notice adds its word here.
  public static let noticeWords: Set<String> = [
    "server", "you", "in", "rooms:", "no", "end", "bye", "authenticated", "already", "this", "commands:",
    "more",
    // The UDP address proof's lines (DatagramProof): `* send /ok CODE …`, `* ok, you are in …`.
    "send", "ok,", "/ok",
  ]

  /// A name as asked for, cleaned: controls (C0, DEL, C1) and whitespace other than the
  /// space removed, trimmed, at most `maxLength` characters; `nil` when nothing visible is
  /// left (format characters such as U+200B alone are no name; docs/BAD-INPUT.md). What the
  /// hub does to a requested name before ``nameRefusal(_:)`` (the fuzz targets use it too).
  package static func cleanName(_ raw: String, maxLength: Int) -> String? {
    let cleaned = String(
      String.UnicodeScalarView(
        raw.unicodeScalars.filter { !$0.properties.isWhitespace || $0 == " " }
          .filter { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }))
    let trimmed = cleaned.trimmingSpacesAndTabs()
    let visible = trimmed.unicodeScalars.contains { $0 != " " && $0.properties.generalCategory != .format }
    guard visible else { return nil }
    return String(trimmed.prefix(maxLength))
  }

  /// Why `name` (already cleaned: trimmed, no controls) would make the member's lines
  /// readable as something else, or `nil` when it would not:
  /// - a message is `NAME: TEXT`: the name may not start with `*`, `!` or `[` (a notice, an
  ///   error, a history line), hold `: ` (the author would end there) or start with
  ///   `Server received` (the UDP echo);
  /// - an action is `* NAME ACTION`: the name's first word may not be one of
  ///   ``noticeWords`` (case aside: `Server is going away` fools a reader too).
  public static func nameRefusal(_ name: String) -> NameRefusal? {
    // Judged as a reader sees it: without the scalars a terminal draws as nothing of their
    // own (format characters such as U+200B, combining marks), so `server` followed by
    // U+200B is still the word `server`, and U+200B before `*` still starts with `*`.
    let seen = visible(name)
    guard let first = seen.unicodeScalars.first else { return .empty }
    if first == "*" || first == "!" || first == "[" { return .marker(Character(first)) }
    if splitMessage(Substring(seen)) != nil { return .colonSpace }
    let lower = seen.lowercased()
    if lower.hasPrefix("server received") { return .echoPrefix }
    let word = firstWord(lower)
    if noticeWords.contains(word) { return .noticeWord(word) }
    return nil
  }

  /// Why the action `* AUTHOR ACTION` would read as presence (the way a line client tells a
  /// member joined, left or was renamed, or is typing), or `nil` when it would not: it may
  /// not end with `has joined`, `has left` or `is typing`, nor hold `is now` after the author (judged on the line as
  /// written, and as a reader sees it).
  public static func actionRefusal(author: String, action: String) -> NameRefusal? {
    let body = escape(author) + " " + escape(action)
    if readsAsPresence(body) || readsAsPresence(visible(body)) { return .actionReadsAsPresence }
    return nil
  }

  /// Whether the body of a `* ` line (what follows `* `) has the shape of a presence
  /// notice: `NAME has joined`, `NAME has left`, `OLD is now NEW` (but not `you are now …`),
  /// or of a typing notice, `NAME is typing`.
  public static func readsAsPresence(_ body: some StringProtocol) -> Bool {
    body.hasSuffix(" has joined") || body.hasSuffix(" has left") || body.hasSuffix(" is typing")
      || (body.contains(" is now ") && !body.hasPrefix("you "))
  }

  /// The first word of `s` (up to its first space, found by scalar: a space followed by a
  /// combining mark is a space too), lowercased.
  package static func firstWord(_ s: some StringProtocol) -> String {
    String(String.UnicodeScalarView(s.unicodeScalars.prefix { $0 != " " })).lowercased()
  }

  /// `s` without the scalars drawn as nothing of their own: format characters (U+200B,
  /// U+2060, bidirectional marks, …) and combining marks.
  static func visible(_ s: String) -> String {
    let hidden = s.unicodeScalars.contains {
      switch $0.properties.generalCategory {
      case .format, .nonspacingMark, .enclosingMark: true
      default: false
      }
    }
    guard hidden else { return s }
    return String(
      String.UnicodeScalarView(
        s.unicodeScalars.filter {
          switch $0.properties.generalCategory {
          case .format, .nonspacingMark, .enclosingMark: false
          default: true
          }
        }))
  }
}
