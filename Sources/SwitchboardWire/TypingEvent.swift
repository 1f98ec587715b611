/// A member started or stopped typing in a room: an ephemeral event, never kept in
/// history, relayed only to the members that asked for it (docs/PROTOCOLS.md, "Typing").
public struct TypingEvent: Equatable, Sendable {
  /// The room the member types in.
  public var room: String
  /// The member's name.
  public var author: String
  /// `true` when it starts (or goes on) typing, `false` when it stops or its state expired.
  public var active: Bool

  public init(room: String, author: String, active: Bool) {
    self.room = room
    self.author = author
    self.active = active
  }
}

/// The optional features a client of the JSON protocol can ask for with a `features` frame
/// (``ClientFrame/features(_:)``): each brings frames a client that never asked does not get.
/// Later features (direct messages, edits, reactions, read markers) join this list.
public enum ProtocolFeature: String, CaseIterable, Sendable {
  /// `typing` frames: who starts and stops typing in the member's room.
  case typing

  /// The protocol version a `features` answer names: 1 is the protocol before negotiation
  /// (a server that answers `features` with `unknown_type`), 2 the first with it.
  public static let protocolVersion = 2

  /// The features named in `names` this server knows, in this type's order (unknown and
  /// repeated names ignored).
  public static func known(_ names: [String]) -> [ProtocolFeature] {
    allCases.filter { names.contains($0.rawValue) }
  }
}

extension JSONDialect {
  /// `{"type":"typing","data":{"room":R,"author":A,"active":B}}`.
  public static func typing(_ event: TypingEvent) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(event.room.utf8.count + event.author.utf8.count + 72)
    append(#"{"type":"typing","data":{"room":""#, to: &out)
    appendEscaped(event.room, to: &out)
    append(#"","author":""#, to: &out)
    appendEscaped(event.author, to: &out)
    append(event.active ? #"","active":true}}"# : #"","active":false}}"#, to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// The answer to a `features` frame:
  /// `{"type":"features","data":{"version":2,"supported":[…],"enabled":[…]}}`, `supported`
  /// being every feature of this server and `enabled` those the connection now gets.
  public static func features(enabled: [ProtocolFeature]) -> String {
    func list(_ features: [ProtocolFeature]) -> String {
      "[" + features.map { quote($0.rawValue) }.joined(separator: ",") + "]"
    }
    return #"{"type":"features","data":{"version":"# + String(ProtocolFeature.protocolVersion)
      + #","supported":"# + list(ProtocolFeature.allCases) + #","enabled":"# + list(enabled) + "}}"
  }
}

extension LineDialect {
  /// `* alice is typing`: what a line member with `/typing on` sees when a member starts
  /// typing (nothing is shown when it stops or its state expires).
  public static func typingNotice(author: String) -> String {
    "* " + escape(author) + " is typing"
  }
}
