import SwitchboardIO
import SwitchboardWebSocket

/// A ``MessageBatch``'s frames as its WebSocket members are sent them: one unmasked text
/// frame per message, back to back, in one `SharedBytes` (the text dialect's
/// `WebSocketSession.textFrames`, the JSON protocol's `JSONDialect.webSocketFrames`).
enum BatchFrames {
  /// `count` text frames, frame `i` carrying the `payloadCount(i)` bytes that
  /// `writePayload(i, into:)` writes into exactly that much room; each size is asked for
  /// once. `nil` when a `writePayload` gives up (returns `false`).
  static func text(
    count: Int, payloadCount: (Int) -> Int, writePayload: (Int, UnsafeMutableRawBufferPointer) -> Bool
  ) -> SharedBytes? {
    withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { payloads in
      var total = 0
      for i in 0..<count {
        payloads[i] = payloadCount(i)
        total += WebSocketConnection.serverFrameCount(payloadCount: payloads[i])
      }
      return SharedBytes(uninitializedCount: total) { buffer in
        var offset = 0
        for i in 0..<count {
          let size = WebSocketConnection.serverFrameCount(payloadCount: payloads[i])
          let frame = UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + size])
          guard WebSocketConnection.withServerFrame(text: payloads[i], in: frame, { writePayload(i, $0) }) else {
            return false
          }
          offset += size
        }
        return true
      }
    }
  }
}
