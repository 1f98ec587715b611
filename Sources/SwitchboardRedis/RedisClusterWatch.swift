import Synchronization

/// The part of a ``RedisClusterClient`` any thread may read: the slot map last read, who
/// waits for the first one, and who hears when it changes. One lock; waiters and handlers
/// run after unlocking.
final class RedisClusterWatch: Sendable {
  private struct Snapshot {
    var map: RedisClusterMap?
    var waiters: [CheckedContinuation<RedisClusterMap?, Never>] = []
    var handlers: [@Sendable (RedisClusterMap) -> Void] = []
    var isClosed = false
  }
  private let snapshot = Mutex(Snapshot())

  /// The map now (`nil` before the first `CLUSTER SLOTS` answer).
  var map: RedisClusterMap? { snapshot.withLock { $0.map } }

  /// A new map was read (on the cluster's loop): store it, tell whoever waits or listens.
  func update(_ map: RedisClusterMap) {
    let (waiters, handlers) = snapshot.withLock { snap in
      snap.map = map
      defer { snap.waiters = [] }
      return (snap.waiters, snap.handlers)
    }
    for waiter in waiters { waiter.resume(returning: map) }
    for handler in handlers { handler(map) }
  }

  /// The client closed: nobody waits any more.
  func close() {
    let waiters = snapshot.withLock { snap in
      snap.isClosed = true
      snap.handlers = []
      defer { snap.waiters = [] }
      return snap.waiters
    }
    for waiter in waiters { waiter.resume(returning: nil) }
  }

  /// Calls `handler` with every later map (on the cluster's loop).
  func onChange(_ handler: @escaping @Sendable (RedisClusterMap) -> Void) {
    snapshot.withLock { $0.handlers.append(handler) }
  }

  /// The map, waiting for the first one; `nil` when the client closed first.
  func firstMap() async -> RedisClusterMap? {
    await withCheckedContinuation { continuation in
      let known = snapshot.withLock { snap -> RedisClusterMap?? in
        if let map = snap.map { return .some(map) }
        if snap.isClosed { return .some(nil) }
        snap.waiters.append(continuation)
        return .none
      }
      if let known { continuation.resume(returning: known) }
    }
  }
}
