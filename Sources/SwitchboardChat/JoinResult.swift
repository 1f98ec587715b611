import SwitchboardWire

/// What a join completes with (``ChatHub/join(_:shard:name:room:announce:since:epoch:historyCount:completion:)``).
public struct JoinResult: Sendable {
  /// The room joined.
  public var room: String
  /// The member's colour.
  public var color: String
  /// Kept messages to show the member first.
  public var history: [ChatMessage]
  /// The room's newest id at the moment of joining (0 when empty).
  public var lastID: UInt64
  /// The room history's epoch.
  public var epoch: String
  /// `false` when `since` asked for messages that are no longer kept.
  public var complete: Bool
  /// Members in the room after the join.
  public var members: Int
}
