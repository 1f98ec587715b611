import SwitchboardWire

/// A room event in the line dialect: the wire's lines for messages, presence and shutdown,
/// chosen by the hub's event.
extension LineDialect {
  /// The text line for `event` (no terminator), or `nil` when the dialect does not show it
  /// (binary data, a new epoch, typing: a line member that asked for typing notices gets
  /// ``typingNotice(author:)`` from its session).
  public static func format(_ event: ChatEvent) -> String? {
    switch event {
    case .message(let m, _): return format(m)
    case .presence(let p, _): return format(p)
    case .binary, .epochChanged, .typing: return nil
    case .shutdown(let reason): return goingAway(reason: reason)
    }
  }
}
