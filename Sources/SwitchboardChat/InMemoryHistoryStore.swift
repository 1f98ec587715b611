import SwitchboardWire
import Synchronization

/// A store that keeps nothing beyond the process: each room gets a fresh random epoch.
///
/// Each room has a lock of its own (a `Room`), found by name under the table's lock, or
/// directly through its ``HistoryRoomAppender`` (what the ``LocalRoomBroker`` uses per
/// message: no look-up of the room's name, no completion).
public final class InMemoryHistoryStore: HistoryStore {
  private struct Ring {
    var epoch: String
    var lastID: UInt64 = 0
    var messages: MessageRing

    mutating func keep(_ message: ChatMessage) {
      lastID = max(lastID, message.id)
      messages.append(message)
    }
  }
  /// One room's ring, under a lock of its own.
  private final class Room: HistoryRoomAppender {
    let ring: Mutex<Ring>

    init(_ ring: Ring) { self.ring = Mutex(ring) }

    func append(_ message: ChatMessage) {
      ring.withLock { $0.keep(message) }
    }
  }
  private let rooms = Mutex<[String: Room]>([:])
  private let retention: Int

  /// Keeps at most `retention` messages per room.
  public init(retention: Int = 1000) {
    self.retention = retention
  }

  /// The room's object, made on first use (table lock held).
  private func room(_ name: String, in rooms: inout [String: Room]) -> Room {
    if let room = rooms[name] { return room }
    let room = Room(Ring(epoch: Self.newEpoch(), messages: MessageRing(capacity: retention)))
    rooms[name] = room
    return room
  }

  public func loadRoom(_ room: String, limit: Int) throws(StoreError) -> RoomSnapshot {
    let r = rooms.withLock { self.room(room, in: &$0) }
    return r.ring.withLock {
      RoomSnapshot(lastID: $0.lastID, epoch: $0.epoch, recent: $0.messages.last(limit))
    }
  }

  public func append(_ message: ChatMessage, completion: (@Sendable (Result<Void, StoreError>) -> Void)?) {
    rooms.withLock { room(message.room, in: &$0) }.append(message)
    completion?(.success(()))
  }

  public func immediateAppender(forRoom room: String) -> (any HistoryRoomAppender)? {
    rooms.withLock { self.room(room, in: &$0) }
  }

  public func messages(room: String, after id: UInt64, limit: Int) throws(StoreError) -> [ChatMessage] {
    guard let r = rooms.withLock({ $0[room] }) else { return [] }
    return r.ring.withLock { Array($0.messages.after(id).prefix(limit)) }
  }

  public func close() {}

  /// A random 16-hex-digit epoch.
  public static func newEpoch() -> String {
    let value = UInt64.random(in: 1...UInt64.max)
    let hex = String(value, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }
}
