import Synchronization

/// A store that keeps nothing beyond the process: each room gets a fresh random epoch.
public final class InMemoryHistoryStore: HistoryStore {
  private struct Room {
    var epoch: String
    var lastID: UInt64 = 0
    var messages: MessageRing

    mutating func keep(_ message: ChatMessage) {
      lastID = max(lastID, message.id)
      messages.append(message)
    }
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
      // In place (no copy of the ring per message), and one hash of the room's name.
      rooms[message.room, default: newRoom()].keep(message)
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
