import SwitchboardWebSocket

/// What a transport delivers to the ``ChatClient`` driver: text units (a WebSocket text
/// frame, a line, a datagram), liveness signals, and the end.
enum TransportInput: Sendable {
  case text(String)
  case ping
  case pong
  /// The connection ended (the stream finishes after this); `code` is the WebSocket
  /// close code, `nil` on the other transports.
  case closed(code: WebSocketCloseCode?, reason: String)
}
