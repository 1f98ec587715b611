/// A message before its room's broker gave it an id: what ``RoomBroker/publish(_:on:completion:)`` takes.
public struct MessageDraft: Sendable {
  /// The message as it will be kept, its ``ChatMessage/id`` still 0.
  public var content: ChatMessage
  /// The member of this node who sent it; handed back with the delivery so dialects that
  /// do not echo can skip it. Opaque to brokers.
  public var origin: MemberID?

  /// A draft of `content` (its id is ignored) from `origin`.
  public init(_ content: ChatMessage, origin: MemberID? = nil) {
    self.content = content
    self.origin = origin
  }

  /// The room it is sent to.
  public var room: String { content.room }

  /// The message with its assigned id.
  public func message(id: UInt64) -> ChatMessage {
    var message = content
    message.id = id
    return message
  }
}
