import SwitchboardWire

/// What a room delivers to its members. `origin` is the member who caused it, so dialects
/// that do not echo (the TCP line dialect) can skip it.
public enum ChatEvent: Sendable {
  case message(ChatMessage, origin: MemberID?)
  case presence(PresenceEvent, origin: MemberID?)
  /// Binary data (WebSocket binary frames), relayed to the room's WebSocket members.
  case binary(room: String, bytes: [UInt8], origin: MemberID?)
  /// A member started or stopped typing (ephemeral: never kept, never in history), for the
  /// members that enabled typing (docs/PROTOCOLS.md, "Typing").
  case typing(TypingEvent, origin: MemberID?)
  /// The server is going away.
  case shutdown(reason: String)
  /// The room's history started over in a new epoch (the broker lost it: Redis came back
  /// without the room's data), so its ids start again from 1. Comes before the new epoch's
  /// first message; a resuming client must forget the ids it saw.
  case epochChanged(room: String, epoch: String)

  /// The member that caused the event, if any.
  public var origin: MemberID? {
    switch self {
    case .message(_, let o), .presence(_, let o), .binary(_, _, let o), .typing(_, let o): return o
    case .shutdown, .epochChanged: return nil
    }
  }
}
