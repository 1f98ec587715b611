import SwitchboardIO

/// The admin console's streams on a loop, and (on the first loop) the tick that feeds them
/// (AdminEventHub.swift).
extension LoopContext {
  /// Starts the once-a-second snapshot tick (on the first loop, when the first stream
  /// anywhere joins); it stops itself at the first tick that finds no stream.
  func startAdminTick() {
    guard adminTick == nil else { return }
    adminTick = loop.scheduleRepeatingLocal(every: .seconds(1)) { [weak self] in
      self?.adminTickFired()
    }
  }

  private func adminTickFired() {
    let events = core.admin.events
    guard let plan = events.plan() else {
      adminTick?.cancel()
      adminTick = nil
      return
    }
    AdminSnapshot.build(self, rooms: plan.rooms, bare: plan.anyWithoutRoom) { built in
      events.deliver(built.frames, lastIDs: built.lastIDs)
    }
  }

  /// A tick's snapshots for this loop's streams.
  func deliverAdminSnapshots(_ frames: [String: [UInt8]]) {
    for stream in Array(adminStreams.values) { stream.deliverAdminSnapshot(frames) }
  }
}
