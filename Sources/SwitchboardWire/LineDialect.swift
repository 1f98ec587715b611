/// How room events read in the line dialect (TCP 8080 and UDP 8081): messages as
/// `NAME: TEXT`, notices set apart with `* `, errors with `! `.
///
/// Every name, room name and text inside a line goes through ``LineEscape`` (so none of it
/// can end the line), and the hub admits only names that cannot make a message or an action
/// read as a notice, an error or another author's (``nameRefusal(_:)``).
public enum LineDialect {
  /// A presence event as a line: `* NAME has joined`, `* NAME has left` or
  /// `* OLD is now NEW`, names escaped (``LineEscape``).
  public static func format(_ p: PresenceEvent) -> String {
    switch p.kind {
    case .join: return "* \(escape(p.author)) has joined"
    case .leave: return "* \(escape(p.author)) has left"
    case .rename(let old): return "* \(escape(old)) is now \(escape(p.author))"
    }
  }

  /// The notice a member gets when the server shuts down: `* server is going away: REASON`.
  public static func goingAway(reason: String) -> String {
    "* server is going away: \(escape(reason))"
  }

  /// A message as a line: `NAME: TEXT`, or `* NAME ACTION`, both escaped (``LineEscape``).
  public static func format(_ m: ChatMessage) -> String {
    m.isAction ? "* \(escape(m.author)) \(escape(m.text))" : "\(escape(m.author)): \(escape(m.text))"
  }

  /// `s` (a name, a room name, a text) as it may stand inside a line (``LineEscape``).
  public static func escape(_ s: String) -> String { LineEscape.escape(s) }

  /// The UTF-8 byte count of ``format(_:)-swift.type.method`` of `m` and a line feed:
  /// the storage ``writeLine(_:into:)`` fills. Reads the text once (eight bytes at a time)
  /// for what needs an escape.
  package static func lineByteCount(_ m: ChatMessage) -> Int {
    var author = m.author
    let authorCount = author.withUTF8 { LineEscape.escapedCount($0) }
    // `* NAME TEXT` (an action: three bytes around the name) or `NAME: TEXT` (two).
    return authorCount + (m.isAction ? 3 : 2) + m.withTextUTF8 { LineEscape.escapedCount($0) } + 1
  }

  /// ``lineByteCount(_:)`` of a line in which nothing needs an escape (no scan: what
  /// ``writePlainLine(_:into:)`` fills).
  package static func plainLineByteCount(_ m: ChatMessage) -> Int {
    plainLineByteCount(m, authorCount: m.author.utf8.count)
  }

  @inline(__always)
  static func plainLineByteCount(_ m: ChatMessage, authorCount: Int) -> Int {
    authorCount + (m.isAction ? 3 : 2) + m.textUTF8Count + 1
  }

  /// The hot path: writes the line of `m` and a line feed into `out`, whose size is
  /// ``plainLineByteCount(_:)``, in one pass that copies author and text eight bytes at a
  /// time while looking for anything to escape; `false` (the bytes unfinished) when something
  /// needs an escape, and the line is ``writeLine(_:into:)``'s to write, in
  /// ``lineByteCount(_:)`` bytes. A message with no line break, control or escape-like
  /// backslash (almost all) costs what a plain copy costs.
  package static func writePlainLine(_ m: ChatMessage, into out: UnsafeMutableRawBufferPointer) -> Bool {
    var author = m.author
    return author.withUTF8 { author in
      precondition(out.count == plainLineByteCount(m, authorCount: author.count), "writePlainLine: not the plain size")
      let base = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
      var at = 0
      if m.isAction {
        base[0] = UInt8(ascii: "*")
        base[1] = UInt8(ascii: " ")
        at = 2
      }
      guard LineEscape.copyIfPlain(author, to: base + at) else { return false }
      at += author.count
      if m.isAction {
        base[at] = UInt8(ascii: " ")
        at += 1
      } else {
        base[at] = UInt8(ascii: ":")
        base[at + 1] = UInt8(ascii: " ")
        at += 2
      }
      guard m.withTextUTF8({ LineEscape.copyIfPlain($0, to: base + at) }) else { return false }
      base[out.count - 1] = UInt8(ascii: "\n")
      return true
    }
  }

  /// Writes the line of `m` (``format(_:)-swift.type.method``) and a line feed into `out`,
  /// whose size is ``lineByteCount(_:)``: the author and the text copied, with no `String`
  /// made of the line (a server's line members share these bytes).
  ///
  /// Escaping only ever lengthens a line, so a buffer of the unescaped size says that
  /// nothing needs one: then author and text are copied as they are, with no second scan.
  package static func writeLine(_ m: ChatMessage, into out: UnsafeMutableRawBufferPointer) {
    var author = m.author
    author.withUTF8 { author in
      let plain = out.count == plainLineByteCount(m, authorCount: author.count)
      let base = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
      var at = 0
      func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        if plain {
          guard let from = bytes.baseAddress, bytes.count > 0 else { return }
          precondition(at + bytes.count <= out.count, "writeLine: past the counted bytes")
          (base + at).update(from: from, count: bytes.count)
          at += bytes.count
        } else {
          precondition(at + LineEscape.escapedCount(bytes) <= out.count, "writeLine: past the counted bytes")
          at += LineEscape.write(bytes, to: base + at)
        }
      }
      func put(_ literal: StaticString) {
        precondition(at + literal.utf8CodeUnitCount <= out.count, "writeLine: past the counted bytes")
        (base + at).update(from: literal.utf8Start, count: literal.utf8CodeUnitCount)
        at += literal.utf8CodeUnitCount
      }
      if m.isAction {
        put("* ")
        put(author)
        put(" ")
      } else {
        put(author)
        put(": ")
      }
      m.withTextUTF8 { put($0) }
      put("\n")
      precondition(at == out.count, "writeLine: not lineByteCount bytes")
    }
  }

  /// A history line: the message prefixed with its id, `[12] bob: hi`.
  public static func formatHistory(_ m: ChatMessage) -> String {
    "[\(m.id)] " + format(m)
  }

  /// Decodes bytes as UTF-8, replacing invalid sequences with U+FFFD.
  public static func decode(_ bytes: some Collection<UInt8>) -> String {
    String(decoding: bytes, as: UTF8.self)
  }
}
