/// A message before its room's broker gave it an id: what ``RoomBroker/publish(_:on:completion:)`` takes.
public struct MessageDraft: Sendable {
  /// The room it is sent to.
  public var room: String
  /// Server time in milliseconds since the Unix epoch.
  public var time: Int64
  /// The author's name.
  public var author: String
  /// The author's colour.
  public var color: String
  /// The text.
  public var text: String
  /// A `/me` action.
  public var isAction: Bool
  /// The member of this node who sent it; handed back with the delivery so dialects that
  /// do not echo can skip it. Opaque to brokers.
  public var origin: MemberID?

  public init(
    room: String, time: Int64, author: String, color: String, text: String, isAction: Bool = false,
    origin: MemberID? = nil
  ) {
    self.room = room
    self.time = time
    self.author = author
    self.color = color
    self.text = text
    self.isAction = isAction
    self.origin = origin
  }

  /// The message with its assigned id.
  public func message(id: UInt64) -> ChatMessage {
    ChatMessage(id: id, room: room, time: time, author: author, color: color, text: text, isAction: isAction)
  }
}
