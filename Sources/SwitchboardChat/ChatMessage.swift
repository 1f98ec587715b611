/// One chat message as kept in history and delivered to every dialect.
public struct ChatMessage: Sendable, Hashable {
  /// Per-room sequence number: 1, 2, 3, … with no gaps.
  public var id: UInt64
  /// The room it was sent to.
  public var room: String
  /// Server time in milliseconds since the Unix epoch.
  public var time: Int64
  /// The author's name.
  public var author: String
  /// The author's colour (a CSS colour name).
  public var color: String
  /// The text.
  public var text: String
  /// `true` for `/me` actions (`* bob waves`).
  public var isAction: Bool

  public init(
    id: UInt64, room: String, time: Int64, author: String, color: String, text: String, isAction: Bool = false
  ) {
    self.id = id
    self.room = room
    self.time = time
    self.author = author
    self.color = color
    self.text = text
    self.isAction = isAction
  }
}
