/// How room events read in the line dialect (TCP 8080 and UDP 8081): messages as
/// `NAME: TEXT`, notices set apart with `* `, errors with `! `.
public enum LineDialect {
  /// The text line for `event` (no terminator), or `nil` when the dialect does not show it
  /// (binary data).
  public static func format(_ event: ChatEvent) -> String? {
    switch event {
    case .message(let m, _):
      return format(m)
    case .presence(let p, _):
      switch p.kind {
      case .join: return "* \(p.author) has joined"
      case .leave: return "* \(p.author) has left"
      case .rename(let old): return "* \(old) is now \(p.author)"
      }
    case .binary, .epochChanged:
      return nil
    case .shutdown(let reason):
      return "* server is going away: \(reason)"
    }
  }

  /// A message as a line.
  public static func format(_ m: ChatMessage) -> String {
    m.isAction ? "* \(m.author) \(m.text)" : "\(m.author): \(m.text)"
  }

  /// The UTF-8 byte count of ``format(_:)-swift.type.method`` of `m` and a line feed:
  /// the storage ``writeLine(_:into:)`` fills.
  package static func lineByteCount(_ m: ChatMessage) -> Int {
    // `* NAME TEXT` (an action: three bytes around the name) or `NAME: TEXT` (two).
    m.author.utf8.count + (m.isAction ? 3 : 2) + m.textUTF8Count + 1
  }

  /// Writes the line of `m` (``format(_:)-swift.type.method``) and a line feed into `out`,
  /// whose size is ``lineByteCount(_:)``: the author and the text copied, with no `String`
  /// made of the line (a server's line members share these bytes).
  package static func writeLine(_ m: ChatMessage, into out: UnsafeMutableRawBufferPointer) {
    precondition(out.count == lineByteCount(m), "writeLine: not lineByteCount bytes")
    var at = 0
    func put(_ bytes: UnsafeRawBufferPointer) {
      guard bytes.count > 0 else { return }
      precondition(at + bytes.count <= out.count, "writeLine: past the counted bytes")
      out.baseAddress!.advanced(by: at).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
      at += bytes.count
    }
    func put(_ literal: StaticString) {
      put(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
    var author = m.author
    author.withUTF8 { author in
      if m.isAction {
        put("* ")
        put(UnsafeRawBufferPointer(author))
        put(" ")
      } else {
        put(UnsafeRawBufferPointer(author))
        put(": ")
      }
    }
    m.withTextUTF8 { put(UnsafeRawBufferPointer($0)) }
    put("\n")
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
