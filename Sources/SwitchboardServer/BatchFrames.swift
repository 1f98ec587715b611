import SwitchboardIO
import SwitchboardWebSocket

/// A ``MessageBatch``'s frames as its WebSocket members are sent them: one unmasked text
/// frame per message, back to back, in one `SharedBytes` (the text dialect's
/// `WebSocketSession.textFrames`, the JSON protocol's `JSONDialect.webSocketFrames`).
enum BatchFrames {
  /// `count` text frames, frame `i` carrying the `measure(i).payload` bytes that
  /// `writePayload(i, measure(i).detail, into:)` writes into exactly that much room; each
  /// frame is measured once, and what the measure found beyond the size (`Detail`: say,
  /// the digits of its numbers) is handed to its writer. `nil` when a `writePayload` gives
  /// up (returns `false`). (Inlined into each caller, where `Detail` is concrete.)
  @inline(__always)
  static func text<Detail>(
    count: Int, measure: (Int) -> (payload: Int, detail: Detail),
    writePayload: (Int, Detail, UnsafeMutableRawBufferPointer) -> Bool
  ) -> SharedBytes? {
    withUnsafeTemporaryAllocation(of: (payload: Int, detail: Detail).self, capacity: count) { sizes in
      var total = 0
      for i in 0..<count {
        sizes.initializeElement(at: i, to: measure(i))
        total += WebSocketConnection.serverFrameCount(payloadCount: sizes[i].payload)
      }
      defer { _ = sizes.deinitialize() }
      return SharedBytes(uninitializedCount: total) { buffer in
        var offset = 0
        for i in 0..<count {
          let (payload, detail) = sizes[i]
          let size = WebSocketConnection.serverFrameCount(payloadCount: payload)
          let frame = UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + size])
          guard WebSocketConnection.withServerFrame(text: payload, in: frame, { writePayload(i, detail, $0) }) else {
            return false
          }
          offset += size
        }
        return true
      }
    }
  }
}
