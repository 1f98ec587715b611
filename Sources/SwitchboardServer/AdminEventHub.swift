import SwitchboardIO
import Synchronization

/// The admin console's live streams over all loops (`GET /admin/events`): which loop has
/// streams watching what, and the tick — the ``ServerSampler``'s once-a-second sample, on
/// the first loop — that builds each distinct snapshot once (one per watched room, one
/// without), encodes it once, and hands the bytes to the loops that have streams for it,
/// which write them (LoopContext+Admin.swift). While no stream is open nothing observes the
/// sampler and nothing is built.
final class AdminEventHub: Sendable {
  /// Whether the tick runs.
  enum Ticking: Equatable {
    case stopped
    /// Observing the sampler under this token.
    case observing(ServerSampler.ObserverToken)
  }

  private struct State {
    var contexts: [LoopBound<LoopContext>] = []
    var sampler: ServerSampler?
    /// Per loop index, the streams per watched room ("" for none).
    var watching: [Int: [String: Int]] = [:]
    /// Per watched room, the last message id a snapshot carried.
    var lastSent: [String: UInt64] = [:]
    var ticking = Ticking.stopped
  }

  private let state = Mutex(State())

  /// The loops' contexts and the sampler whose samples tick (set once, when the server is
  /// made).
  func attach(_ contexts: [LoopBound<LoopContext>], sampler: ServerSampler) {
    state.withLock {
      $0.contexts = contexts
      $0.sampler = sampler
    }
  }

  /// A stream on loop `loop` watches `room` (`nil`: no room) from now on; its first snapshot
  /// carried the room's messages up to `lastID`. Starts the tick when it is the first.
  func watch(loop: Int, room: String?, lastID: UInt64?) {
    state.withLock { s in
      s.watching[loop, default: [:]][room ?? "", default: 0] += 1
      if let room, let lastID, s.lastSent[room] == nil { s.lastSent[room] = lastID }
      guard s.ticking == .stopped, let first = s.contexts.first, let sampler = s.sampler else { return }
      // The observer runs on the first loop, where `first` may be read.
      s.ticking = .observing(sampler.observe { sample in first.value.adminTick(sample) })
    }
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
  /// carried; `nil` when nothing is watched (the tick then stops observing the sampler).
  func plan() -> (rooms: [String: UInt64?], anyWithoutRoom: Bool)? {
    let (plan, stop) = state.withLock {
      s -> ((rooms: [String: UInt64?], anyWithoutRoom: Bool)?, ServerSampler.ObserverToken?) in
      guard !s.watching.isEmpty else {
        s.lastSent = [:]
        guard case .observing(let token) = s.ticking else { return (nil, nil) }
        s.ticking = .stopped
        return (nil, token)
      }
      var rooms: [String: UInt64?] = [:]
      var bare = false
      for keys in s.watching.values {
        for key in keys.keys {
          if key.isEmpty { bare = true } else { rooms[key] = s.lastSent[key] }
        }
      }
      s.lastSent = s.lastSent.filter { rooms[$0.key] != nil }
      return ((rooms, bare), nil)
    }
    if let stop { state.withLock { $0.sampler }?.stopObserving(stop) }
    return plan
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
