/// What the shell around a ``WebSocketConnection`` must do after feeding it bytes.
/// Carry out the actions in order.
public enum WebSocketAction: Sendable, Hashable {
  /// A complete text message arrived.
  case text(String)
  /// A complete binary message arrived.
  case binary([UInt8])
  /// A ping arrived (its pong reply is already in a preceding ``send(_:)``).
  case ping([UInt8])
  /// A pong arrived.
  case pong([UInt8])
  /// Bytes to write to the peer (pong replies, close frames).
  case send([UInt8])
  /// The connection is finished: after writing any preceding ``send(_:)`` bytes, close
  /// the TCP connection. `code` is the peer's close code when the peer closed (`nil`
  /// if its close frame had no code), or the code this side sent when it failed the
  /// connection; `reason` is the matching text.
  case close(code: WebSocketCloseCode?, reason: String)
}
