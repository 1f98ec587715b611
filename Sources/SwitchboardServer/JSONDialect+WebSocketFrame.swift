import SwitchboardChat
import SwitchboardIO
import SwitchboardWebSocket
import SwitchboardWire

/// A room event's JSON frame as the WebSocket frame every JSON member of a shard is sent.
extension JSONDialect {
  /// The unmasked, uncompressed WebSocket text frame of `event`'s JSON form, in the bytes
  /// the shard's JSON members share (an empty text frame for an event the protocol does not
  /// show). A plain `message` (nothing in it to escape, nearly every one) is written once,
  /// header and payload, straight into that storage, its strings checked as they are
  /// copied: its size is counted first (``plainMessageFrameCount(_:)``), so there is one
  /// allocation and no array in between. Any other event (and a message the pass finds an
  /// escape in) is built as an array behind room for the header, framed in place, and
  /// copied once. The same bytes either way (`JSONWebSocketFrameTests`).
  static func webSocketFrame(_ event: ChatEvent) -> SharedBytes {
    if case .message(let m, _) = event {
      let count = plainMessageFrameCount(m)
      let frame = SharedBytes(uninitializedCount: WebSocketConnection.serverFrameCount(payloadCount: count)) {
        WebSocketConnection.withServerFrame(text: count, in: $0) { writePlainMessageFrame(m, into: $0) }
      }
      if let frame { return frame }
    }
    let room = WebSocketConnection.serverHeaderRoom
    var frame = encodedBytes(event, headerRoom: room) ?? [UInt8](repeating: 0, count: room)
    return WebSocketConnection.withServerFrame(text: &frame, payloadAt: room, SharedBytes.init(copying:))
  }
}

extension JSONDialect {
  /// Every message's ``webSocketFrame(_:)``, back to back, in one `SharedBytes`: a
  /// ``MessageBatch`` as JSON members are sent it. Plain messages are written in place, as
  /// one frame is; if one needs an escape, each frame is made alone and copied in.
  static func webSocketFrames(_ messages: UnsafeBufferPointer<BatchedMessage>) -> SharedBytes {
    BatchFrames.text(count: messages.count) {
      let size = plainMessageFrameSize(messages, at: $0)
      return (size.payload, size)
    } writePayload: {
      writePlainMessageFrame(messages, at: $0, size: $1, into: $2)
    } ?? joined(messages)
  }

  /// Each message's frame made alone, then copied together.
  private static func joined(_ messages: UnsafeBufferPointer<BatchedMessage>) -> SharedBytes {
    var bytes: [UInt8] = []
    for message in messages { webSocketFrame(message.event).withUnsafeBytes { bytes.append(contentsOf: $0) } }
    return bytes.withUnsafeBytes { SharedBytes(copying: $0) }
  }
}
