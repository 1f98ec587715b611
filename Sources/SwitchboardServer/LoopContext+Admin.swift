import SwitchboardIO

/// The admin console's streams on a loop, and (on the first loop) the tick that feeds them
/// (AdminEventHub.swift).
extension LoopContext {
  /// A sample was taken (on the first loop, while a stream is open anywhere): the tick.
  func adminTick(_ sample: ServerSample) {
    let events = core.admin.events
    guard let plan = events.plan() else { return }
    AdminSnapshot.build(self, sample: sample, rooms: plan.rooms, bare: plan.anyWithoutRoom) { built in
      events.deliver(built.frames, lastIDs: built.lastIDs)
    }
  }

  /// A tick's snapshots for this loop's streams.
  func deliverAdminSnapshots(_ frames: [String: [UInt8]]) {
    for stream in Array(adminStreams.values) { stream.deliverAdminSnapshot(frames) }
  }

  /// The server is stopping: each stream here ends with an `end` event naming `reason`, so
  /// a reader (`switchboard top`, the page) can tell a shutdown from a lost connection.
  func endAdminStreams(reason: String) {
    for stream in Array(adminStreams.values) { stream.endAdminStream(reason: reason) }
  }
}
