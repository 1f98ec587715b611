import Synchronization

/// Why a history store failed.
public struct StoreError: Error, Sendable, CustomStringConvertible, Equatable {
  /// What went wrong, for logs and startup errors.
  public let message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

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

/// Where rooms' messages are kept. The hub keeps the newest messages of each room in
/// memory and writes every message through to the store; implementations: in memory
/// (tests, `--ephemeral`) and SQLite (the default).
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
}

/// A store that keeps nothing beyond the process: each room gets a fresh random epoch.
public final class InMemoryHistoryStore: HistoryStore {
  private struct Room {
    var epoch: String
    var lastID: UInt64 = 0
    var messages: MessageRing
  }
  private let rooms = Mutex<[String: Room]>([:])
  private let retention: Int

  /// Keeps at most `retention` messages per room.
  public init(retention: Int = 1000) {
    self.retention = retention
  }

  private func newRoom() -> Room {
    Room(epoch: Self.newEpoch(), messages: MessageRing(capacity: retention))
  }

  public func loadRoom(_ room: String, limit: Int) throws(StoreError) -> RoomSnapshot {
    rooms.withLock { rooms in
      if rooms[room] == nil { rooms[room] = newRoom() }
      let r = rooms[room]!
      return RoomSnapshot(lastID: r.lastID, epoch: r.epoch, recent: r.messages.last(limit))
    }
  }

  public func append(_ message: ChatMessage, completion: (@Sendable (Result<Void, StoreError>) -> Void)?) {
    rooms.withLock { rooms in
      if rooms[message.room] == nil { rooms[message.room] = newRoom() }
      // In place (no copy of the ring per message).
      rooms[message.room]!.lastID = max(rooms[message.room]!.lastID, message.id)
      rooms[message.room]!.messages.append(message)
    }
    completion?(.success(()))
  }

  public func messages(room: String, after id: UInt64, limit: Int) throws(StoreError) -> [ChatMessage] {
    rooms.withLock { rooms in
      Array((rooms[room]?.messages.after(id) ?? []).prefix(limit))
    }
  }

  public func close() {}

  /// A random 16-hex-digit epoch.
  public static func newEpoch() -> String {
    let value = UInt64.random(in: 1...UInt64.max)
    let hex = String(value, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }
}
