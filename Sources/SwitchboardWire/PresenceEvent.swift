/// A member arriving, leaving or renaming.
public struct PresenceEvent: Sendable, Hashable {
  /// What happened.
  public enum Kind: Sendable, Hashable {
    case join
    case leave
    /// Renamed; the payload is the previous name.
    case rename(from: String)
  }
  /// What happened.
  public var kind: Kind
  /// The member's (new) name.
  public var author: String
  /// The room it happened in.
  public var room: String
  /// Members in the room after the event.
  public var members: Int
  /// The member's colour.
  public var color: String

  /// A presence event of `kind` for `author` in `room`, which then has `members` members.
  public init(kind: Kind, author: String, room: String, members: Int, color: String) {
    self.kind = kind
    self.author = author
    self.room = room
    self.members = members
    self.color = color
  }
}
