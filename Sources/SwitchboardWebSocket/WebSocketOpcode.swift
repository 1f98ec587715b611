/// A WebSocket frame opcode (RFC 6455 section 5.2).
///
/// Only the six opcodes defined by RFC 6455 exist as values; the reserved opcodes
/// (3–7, 11–15) are rejected by ``WebSocketFrameDecoder`` with close code 1002.
public enum WebSocketOpcode: UInt8, Sendable, Hashable, CaseIterable {
  /// A continuation of a fragmented data message (0x0).
  case continuation = 0x0
  /// A text data frame (0x1); the message payload must be UTF-8.
  case text = 0x1
  /// A binary data frame (0x2).
  case binary = 0x2
  /// A close control frame (0x8).
  case close = 0x8
  /// A ping control frame (0x9).
  case ping = 0x9
  /// A pong control frame (0xA).
  case pong = 0xA

  /// Whether this is a control opcode (close, ping, pong), which may not be fragmented
  /// and carries at most 125 payload bytes.
  @inlinable
  public var isControl: Bool { rawValue & 0x8 != 0 }
}
