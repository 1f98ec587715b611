/// The line dialect's rule as a check: what the fuzz targets (`fuzz-line`, `fuzz-json`) and
/// the tests hold every line a member can cause to.
extension LineDialect {
  /// What is wrong with the lines that `author` (a name the hub admitted) sending `text` as a
  /// message and as an action causes, or `nil` when they are exactly what the rule says:
  /// - written byte by byte (``writeLine(_:into:)``) each is ``format(_:)-swift.type.method``
  ///   and a line feed, ``lineByteCount(_:)`` bytes, with no other line break or escaped
  ///   character in it; the one-pass ``writePlainLine(_:into:)`` writes the same bytes
  ///   exactly when nothing needed an escape, and says so otherwise;
  /// - the message `NAME: TEXT` starts with no `* `, `! `, `[` or `Server received`, its
  ///   author ends at its first `: `, and name and text read back exactly (``LineEscape``);
  /// - the action `* NAME ACTION`, unless ``actionRefusal(author:action:)`` refuses it,
  ///   starts with no notice word (``noticeWords``), does not read as presence, and reads
  ///   back exactly; so does the history line `[ID] …` of each.
  package static func ruleBreach(author: String, text: String) -> String? {
    if let refusal = nameRefusal(author) { return "the name \(author.debugDescription) is refused: \(refusal)" }
    for isAction in [false, true] {
      if isAction, actionRefusal(author: author, action: text) != nil { continue }
      let m = ChatMessage(id: 12, room: "r", time: 1, author: author, color: "c", text: text, isAction: isAction)
      var bytes = [UInt8](repeating: 0, count: lineByteCount(m))
      bytes.withUnsafeMutableBytes { writeLine(m, into: $0) }
      let line = format(m)
      guard bytes == Array((line + "\n").utf8) else { return "the written line is not the formatted one: \(line)" }
      var plain = [UInt8](repeating: 0, count: plainLineByteCount(m))
      let isPlain = plain.withUnsafeMutableBytes { writePlainLine(m, into: $0) }
      guard isPlain == (plain.count == bytes.count), !isPlain || plain == bytes else {
        return "the one-pass writer says \(isPlain) of \(line)"
      }
      if line.unicodeScalars.contains(where: LineEscape.isEscaped) { return "a line break stayed in \(line)" }
      for history in [false, true] {
        let shown = history ? formatHistory(m) : line
        guard let read = reading(of: shown, history: history, isAction: isAction) else {
          return "\(shown) does not read as the member's line"
        }
        // An action's name cannot be told from its text (`* Client 3 waves`): the two read
        // back together.
        let expected = isAction ? (nil, author + " " + text) : (author, text)
        guard read.author == expected.0, read.text == expected.1 else {
          return "\(shown) reads back as \(String(describing: read.author)): \(read.text.debugDescription)"
        }
      }
    }
    return nil
  }

  /// The author and text a reader takes from a member's line (an action's as one text), or
  /// `nil` when it would take it for something else (a notice, an error, an echo, presence).
  private static func reading(of line: String, history: Bool, isAction: Bool) -> (author: String?, text: String)? {
    var rest = Substring(line)
    if history {
      guard starts(rest, with: "["), let close = rest.utf8.firstIndex(of: UInt8(ascii: "]")),
        rest[close...].utf8.dropFirst().first == UInt8(ascii: " ")
      else { return nil }
      rest = rest[rest.utf8.index(close, offsetBy: 2)...]
    }
    if isAction {
      guard starts(rest, with: "* ") else { return nil }
      let body = afterPrefix(rest, 2)
      guard !noticeWords.contains(firstWord(body)), !readsAsPresence(body) else { return nil }
      return (nil, LineEscape.unescape(body))
    }
    if starts(rest, with: "* ") || starts(rest, with: "! ") || starts(rest, with: "[") { return nil }
    if rest.lowercased().hasPrefix("server received") { return nil }
    guard let (author, text) = splitMessage(rest) else { return nil }
    return (LineEscape.unescape(author), LineEscape.unescape(text))
  }
}

extension LineDialect {
  /// A message line's author and text (still escaped), split at its first `: `, or `nil`
  /// when it has none. Found in the UTF-8, not among `Character`s: a text that starts with a
  /// combining mark makes the space before it part of one `Character` with the mark, and a
  /// split by characters would miss the author's end and take a later `: ` for it.
  package static func splitMessage(_ line: Substring) -> (author: Substring, text: Substring)? {
    let utf8 = line.utf8
    var i = utf8.startIndex
    while let colon = utf8[i...].firstIndex(of: UInt8(ascii: ":")) {
      let next = utf8.index(after: colon)
      if next < utf8.endIndex, utf8[next] == UInt8(ascii: " ") {
        return (line[..<colon], line[utf8.index(after: next)...])
      }
      i = next
    }
    return nil
  }

  /// `line` after its first `count` bytes (ASCII ones: a prefix found by ``starts(_:with:)``).
  package static func afterPrefix(_ line: some StringProtocol, _ count: Int) -> Substring {
    let line = Substring(line)
    return line[line.utf8.index(line.startIndex, offsetBy: count)...]
  }

  /// Whether `line` starts with `prefix`, byte for byte (a `Character` comparison would
  /// not see `* ` in `* ` followed by a combining mark).
  package static func starts(_ line: some StringProtocol, with prefix: StaticString) -> Bool {
    line.utf8.starts(with: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
  }
}
