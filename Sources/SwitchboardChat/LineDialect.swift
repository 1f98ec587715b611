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

  /// A history line: the message prefixed with its id, `[12] bob: hi`.
  public static func formatHistory(_ m: ChatMessage) -> String {
    "[\(m.id)] " + format(m)
  }

  /// Decodes bytes as UTF-8, replacing invalid sequences with U+FFFD.
  public static func decode(_ bytes: some Collection<UInt8>) -> String {
    String(decoding: bytes, as: UTF8.self)
  }
}
