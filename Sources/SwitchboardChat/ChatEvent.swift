/// Identifies one member (a TCP connection, a UDP sender, a WebSocket) for the server's life.
public struct MemberID: Hashable, Sendable, CustomStringConvertible {
  /// The raw number (also the `N` of `Client N`).
  public let raw: UInt64
  public init(raw: UInt64) { self.raw = raw }
  public var description: String { "#\(raw)" }
}

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

/// A member arriving, leaving or renaming.
public struct PresenceEvent: Sendable, Hashable {
  /// What happened.
  public enum Kind: Sendable, Hashable {
    case join
    case leave
    /// Renamed; the payload is the previous name.
    case rename(from: String)
  }
  public var kind: Kind
  /// The member's (new) name.
  public var author: String
  public var room: String
  /// Members in the room after the event.
  public var members: Int
  public var color: String

  public init(kind: Kind, author: String, room: String, members: Int, color: String) {
    self.kind = kind
    self.author = author
    self.room = room
    self.members = members
    self.color = color
  }
}

/// What a room delivers to its members. `origin` is the member who caused it, so dialects
/// that do not echo (the TCP line dialect) can skip it.
public enum ChatEvent: Sendable {
  case message(ChatMessage, origin: MemberID?)
  case presence(PresenceEvent, origin: MemberID?)
  /// Binary data (WebSocket binary frames), relayed to the room's WebSocket members.
  case binary(room: String, bytes: [UInt8], origin: MemberID?)
  /// The server is going away.
  case shutdown(reason: String)

  /// The member that caused the event, if any.
  public var origin: MemberID? {
    switch self {
    case .message(_, let o), .presence(_, let o), .binary(_, _, let o): return o
    case .shutdown: return nil
    }
  }
}
