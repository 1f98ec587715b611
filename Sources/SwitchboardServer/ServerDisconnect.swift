import SwitchboardWebSocket

/// What a member removed by the server API (`POST /api/disconnect`) is told
/// (docs/PROTOCOLS.md, "Disconnected by the server").
enum ServerDisconnect {
  /// The WebSocket close code: 4001, in the range RFC 6455 leaves to applications. The
  /// client library takes it as final and does not reconnect by itself.
  static let closeCode = WebSocketCloseCode(4001)
  /// The reason when the request gives none.
  static let defaultReason = "removed"

  /// The line dialect's notice, before the connection closes.
  static func line(reason: String) -> String {
    "* disconnected by the server: \(reason)"
  }

  /// The close frame's reason: `disconnected by the server: REASON`, cut to fit the 123
  /// bytes a close reason may have (on a character boundary).
  static func closeReason(_ reason: String) -> String {
    var text = "disconnected by the server: \(reason)"
    while text.utf8.count > 123 { text.removeLast() }
    return text
  }
}
