/// What the hub needs to continue a room after a restart.
public struct RoomSnapshot: Sendable, Equatable {
  /// The highest id ever assigned in the room (0 for a new room); the next is `lastID + 1`.
  public var lastID: UInt64
  /// Identifies this incarnation of the room's history; changes when the history is reset
  /// or lost, so a resuming client knows its ids no longer mean the same messages.
  public var epoch: String
  /// The newest kept messages, oldest first.
  public var recent: [ChatMessage]

  public init(lastID: UInt64, epoch: String, recent: [ChatMessage]) {
    self.lastID = lastID
    self.epoch = epoch
    self.recent = recent
  }
}
