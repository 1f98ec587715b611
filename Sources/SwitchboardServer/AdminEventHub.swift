import SwitchboardIO
import Synchronization

/// The admin console's live streams over all loops (`GET /admin/events`): which loop has
/// streams watching what, and the once-a-second tick on the first loop that builds each
/// distinct snapshot once (one per watched room, one without), encodes it once, and hands
/// the bytes to the loops that have streams for it, which write them (LoopContext+Admin.swift).
/// While no stream is open nothing is built and nothing ticks.
final class AdminEventHub: Sendable {
  /// Whether the tick runs.
  enum Ticking: Equatable {
    case stopped
    case running
  }

  private struct State {
    var contexts: [LoopBound<LoopContext>] = []
    /// Per loop index, the streams per watched room ("" for none).
    var watching: [Int: [String: Int]] = [:]
    /// Per watched room, the last message id a snapshot carried.
    var lastSent: [String: UInt64] = [:]
    var ticking = Ticking.stopped
  }

  private let state = Mutex(State())

  /// The loops' contexts (set once, when the server is made).
  func attach(_ contexts: [LoopBound<LoopContext>]) {
    state.withLock { $0.contexts = contexts }
  }

  /// A stream on loop `loop` watches `room` (`nil`: no room) from now on; its first snapshot
  /// carried the room's messages up to `lastID`. Starts the tick when it is the first.
  func watch(loop: Int, room: String?, lastID: UInt64?) {
    let start = state.withLock { s -> LoopBound<LoopContext>? in
      s.watching[loop, default: [:]][room ?? "", default: 0] += 1
      if let room, let lastID, s.lastSent[room] == nil { s.lastSent[room] = lastID }
      guard s.ticking == .stopped, let first = s.contexts.first else { return nil }
      s.ticking = .running
      return first
    }
    guard let first = start else { return }
    first.loop.execute { first.value.startAdminTick() }
  }

  /// A stream on `loop` watching `room` ended.
  func unwatch(loop: Int, room: String?) {
    state.withLock { s in
      let key = room ?? ""
      guard let count = s.watching[loop]?[key] else { return }
      s.watching[loop]?[key] = count > 1 ? count - 1 : nil
      if s.watching[loop]?.isEmpty == true { s.watching[loop] = nil }
    }
  }

  /// What one tick builds: the rooms watched anywhere, with the last id each snapshot
  /// carried; `nil` when nothing is watched (the tick then stops).
  func plan() -> (rooms: [String: UInt64?], anyWithoutRoom: Bool)? {
    state.withLock { s in
      guard !s.watching.isEmpty else {
        s.ticking = .stopped
        s.lastSent = [:]
        return nil
      }
      var rooms: [String: UInt64?] = [:]
      var bare = false
      for keys in s.watching.values {
        for key in keys.keys {
          if key.isEmpty { bare = true } else { rooms[key] = s.lastSent[key] }
        }
      }
      s.lastSent = s.lastSent.filter { rooms[$0.key] != nil }
      return (rooms, bare)
    }
  }

  /// Hands a tick's encoded snapshots (by room, "" for none) to every loop with streams,
  /// and remembers the last id each room's snapshot carried.
  func deliver(_ frames: [String: [UInt8]], lastIDs: [String: UInt64]) {
    let targets = state.withLock { s -> [LoopBound<LoopContext>] in
      for (room, id) in lastIDs
      where s.lastSent[room] != nil || s.watching.values.contains(where: { $0[room] != nil }) {
        s.lastSent[room] = id
      }
      return s.watching.keys.sorted().compactMap { s.contexts.indices.contains($0) ? s.contexts[$0] : nil }
    }
    for target in targets {
      target.loop.execute { target.value.deliverAdminSnapshots(frames) }
    }
  }
}
