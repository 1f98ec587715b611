import SwitchboardWire

/// One room's appends to a store that keeps them at once (``HistoryStore/immediateAppender(forRoom:)``).
public protocol HistoryRoomAppender: AnyObject, Sendable {
  /// Keeps `message` (a message of the appender's room) before returning; it cannot fail.
  func append(_ message: ChatMessage)
}
