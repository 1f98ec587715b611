/// Runs work on the thread that owns a shard (an event loop, in the server).
public protocol ShardExecutor: Sendable {
  /// Runs `task` on the owning thread, in submission order.
  func execute(_ task: @escaping @Sendable () -> Void)
  /// Whether more tasks wait behind the one running now. Asked on the owning thread while
  /// a delivery runs: when nothing else is queued, members may send at once instead of
  /// waiting for a batched flush (see ``EncodingCache/sendNow``). Defaults to `true`.
  var hasPendingTasks: Bool { get }
}

extension ShardExecutor {
  public var hasPendingTasks: Bool { true }
}

/// A member as its own loop sees it: the object that turns room events into bytes on a
/// socket. Called only on the member's shard thread.
public protocol LocalMember: AnyObject {
  /// The member's identity.
  var memberID: MemberID { get }
  /// Delivers `event`. `cache` holds encodings shared by every member of this shard for
  /// this event (one per dialect), so a frame is encoded once and its bytes shared.
  func receive(_ event: ChatEvent, cache: inout EncodingCache)
}

/// Per-event, per-shard storage for encodings, keyed by a small dialect number.
public struct EncodingCache {
  private var slots: [AnyObject?] = [nil, nil, nil, nil, nil, nil, nil, nil]
  /// `true` when no other delivery is queued behind this one on the shard's thread, so a
  /// member with nothing else pending may hand its bytes to the socket right away: one
  /// pass over the room's connections instead of one to queue and one to flush. When
  /// more deliveries are queued it is `false`, and their frames share one batched write.
  public var sendNow = false

  public init(sendNow: Bool = false) {
    self.sendNow = sendNow
  }

  /// The encoding stored for `dialect` (0–7), making it with `encode` the first time.
  public mutating func value<T: AnyObject>(for dialect: Int, _ encode: () -> T) -> T {
    if let existing = slots[dialect] as? T { return existing }
    let made = encode()
    slots[dialect] = made
    return made
  }
}

/// The members of one room that live on one shard (one event loop). Confined to the
/// shard's thread; the hub reaches it only through its executor.
public final class HubShard: @unchecked Sendable {
  // Safety: `rooms` is read and written only inside tasks run by `executor`, which runs
  // them serially on the shard's own thread.
  /// The shard's index in the hub.
  public let index: Int
  let executor: ShardExecutor
  private var rooms: [String: [MemberID: LocalMember]] = [:]

  init(index: Int, executor: ShardExecutor) {
    self.index = index
    self.executor = executor
  }

  func add(_ member: LocalMember, room: String) {
    rooms[room, default: [:]][member.memberID] = member
  }

  func remove(_ id: MemberID, room: String) {
    rooms[room]?[id] = nil
    if rooms[room]?.isEmpty == true { rooms[room] = nil }
  }

  func deliver(_ event: ChatEvent, room: String) {
    guard let members = rooms[room] else { return }
    var cache = EncodingCache(sendNow: !executor.hasPendingTasks)
    for member in members.values { member.receive(event, cache: &cache) }
  }

  func deliverToAll(_ event: ChatEvent) {
    var cache = EncodingCache()
    for members in rooms.values {
      for member in members.values { member.receive(event, cache: &cache) }
    }
  }
}
