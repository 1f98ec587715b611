import SwitchboardWire

/// Where the ``LocalRoomBroker`` keeps rooms' messages: it writes every message through
/// to the store and reads rooms back from it (off the event loops: `loadRoom` and
/// `messages` may block). Implementations: in memory (tests, `--ephemeral`) and SQLite
/// (the default).
public protocol HistoryStore: Sendable {
  /// Loads (or creates) `room`: its last id, epoch and up to `limit` newest messages.
  func loadRoom(_ room: String, limit: Int) throws(StoreError) -> RoomSnapshot
  /// Stores `message`. `completion` runs (on any thread) once the message is durable as
  /// the store's durability setting defines, or failed; the server sends `ack` then.
  func append(_ message: ChatMessage, completion: (@Sendable (Result<Void, StoreError>) -> Void)?)
  /// Kept messages of `room` with an id above `id`, oldest first, at most `limit`.
  func messages(room: String, after id: UInt64, limit: Int) throws(StoreError) -> [ChatMessage]
  /// Flushes pending writes and releases resources.
  func close()
  /// A store that keeps a message at once and cannot fail to (one in memory) answers with
  /// an appender for `room`, which the broker then uses instead of
  /// ``append(_:completion:)``: no look-up of the room by name and no completion per
  /// message. Asked once per room, after ``loadRoom(_:limit:)``. The default is `nil` (a
  /// store that writes to disk must answer through completions).
  func immediateAppender(forRoom room: String) -> (any HistoryRoomAppender)?
  /// The names of the rooms the store holds, at most `limit` of them (the server counts
  /// them against `--max-rooms` at startup). The default is none.
  func roomNames(limit: Int) -> [String]
}

extension HistoryStore {
  /// None: every message goes through ``append(_:completion:)``.
  public func immediateAppender(forRoom room: String) -> (any HistoryRoomAppender)? { nil }
  /// None: a store in memory starts empty.
  public func roomNames(limit: Int) -> [String] { [] }
}
