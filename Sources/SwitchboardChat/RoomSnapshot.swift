import SwitchboardWire

/// What the hub needs to continue a room after a restart.
public struct RoomSnapshot: Sendable, Equatable {
  /// The highest id ever assigned in the room (0 for a new room); the next is `lastID + 1`.
  public var lastID: UInt64
  /// Identifies this incarnation of the room's history; changes when the history is reset
  /// or lost, so a resuming client knows its ids no longer mean the same messages.
  public var epoch: String
  /// The newest kept messages, oldest first.
  public var recent: [ChatMessage]
  /// The broker's own object for the room, if it has one: the hub hands it back with every
  /// publish to the room (``MessageDraft/brokerRoom``), so the broker need not look the
  /// room up by name per message. Opaque to the hub; not part of the snapshot's equality.
  public var brokerRoom: BrokerRoomHandle?

  /// A snapshot of a room: its last id, epoch and newest kept messages, and the broker's
  /// handle for it if it makes one.
  public init(lastID: UInt64, epoch: String, recent: [ChatMessage], brokerRoom: BrokerRoomHandle? = nil) {
    self.lastID = lastID
    self.epoch = epoch
    self.recent = recent
    self.brokerRoom = brokerRoom
  }

  /// Equal when the id, epoch and messages are: the broker's handle is left out.
  public static func == (a: RoomSnapshot, b: RoomSnapshot) -> Bool {
    a.lastID == b.lastID && a.epoch == b.epoch && a.recent == b.recent
  }
}
