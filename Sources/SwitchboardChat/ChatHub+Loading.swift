import Synchronization

/// A room's life on this node after its first join: the broker's snapshot arriving, and
/// the idle close.
extension ChatHub {
  /// The broker answered `openRoom`: admit the queued joins, apply the queued deliveries,
  /// then hand the queued publishes to the broker in order (see ``HubRoom/Phase``).
  func roomOpened(_ cell: HubRoomCell, _ result: Result<RoomSnapshot, BrokerError>) {
    // A room the broker cannot open carries on live with a new epoch, so clients see
    // `recovered: false` instead of a silent gap.
    let snapshot =
      (try? result.get()) ?? RoomSnapshot(lastID: 0, epoch: InMemoryHistoryStore.newEpoch(), recent: [])
    var presence: Presence = []
    // The directory's lock too: admitting a queued join updates the member's record.
    var publishes = directory.withLock { directory -> [HubRoom.QueuedPublish] in
      cell.state.withLock { r -> [HubRoom.QueuedPublish] in
        guard case .loading(let queue) = r.phase else { return [] }
        // Straight to ready when no publish waited (the usual case); else draining, so
        // publishes arriving meanwhile queue behind the waiting ones.
        let waiting = queue.contains { if case .publish = $0 { return true } else { return false } }
        r.phase = waiting ? .draining([]) : .ready
        r.lastID = snapshot.lastID
        r.epoch = snapshot.epoch
        r.brokerRoom = snapshot.brokerRoom
        for m in snapshot.recent { r.history.append(m) }
        var publishes: [HubRoom.QueuedPublish] = []
        for operation in queue {
          switch operation {
          case .join(let pending): admitQueuedLocked(&r, cell, pending, directory: directory, &presence)
          case .publish(let publish): publishes.append(publish)
          case .delivery(let m, let epoch, let origin): _ = deliverLocked(&r, m, epoch: epoch, origin: origin)
          }
        }
        return publishes
      }
    }
    forward(presence)
    // Hand the queue over outside the lock; what was published meanwhile queued behind
    // it and goes next, until nothing is left and the room is ready.
    while !publishes.isEmpty {
      for p in publishes {
        var draft = p.draft
        draft.brokerRoom = snapshot.brokerRoom
        broker.publish(
          draft, on: p.answer.completion == nil ? nil : p.answer.executor, completion: p.answer.completion)
      }
      let sent = publishes.count
      publishes = cell.state.withLock { r -> [HubRoom.QueuedPublish] in
        guard case .draining(let more) = r.phase else { return [] }
        r.queuedPublishes -= sent
        r.phase = more.isEmpty ? .ready : .draining([])
        return more
      }
    }
  }

  /// Admits a join that waited for the room, if the member still wants it.
  private func admitQueuedLocked(
    _ r: inout HubRoom, _ cell: HubRoomCell, _ pending: PendingJoin, directory: borrowing Directory,
    _ presence: inout Presence
  ) {
    let id = pending.member.memberID
    guard let record = record(id, in: directory), let waiting = record.info.withLock({ $0 }),
      waiting.placement == .joining(pending.serial)
    else { return }
    let result = admitLocked(
      &r, cell, pending.member, shard: pending.shard, id: id, color: waiting.color, alreadyIn: false,
      since: pending.since, epoch: pending.epoch, historyCount: pending.historyCount)
    let info = waiting.with(placement: .inRoom, brokerRoom: .some(r.brokerRoom))
    record.info.withLock { $0 = info }
    if info.announced { emitPresenceLocked(&r, cell, .join, id: id, info: info, &presence) }
    if let completion = pending.completion {
      let answer = ShardBound(completion)
      pending.shard.executor.execute { answer.value(result) }
    }
  }

  /// The room has no member here any more: unless one joins within the grace, drop it
  /// (``closeIfIdle(_:mark:)``). Only a timer is queued under the lock.
  func scheduleIdleCheckLocked(_ r: inout HubRoom, _ cell: HubRoomCell) {
    guard let grace = configuration.roomIdleGrace else { return }
    r.nextIdleMark += 1
    let mark = r.nextIdleMark
    r.idleMark = mark
    configuration.timer.schedule(after: grace) { [weak self] in
      self?.closeIfIdle(cell, mark: mark)
    }
  }

  /// The grace of idle check `mark` ran out: drop the room if nobody joined meanwhile, and
  /// tell the broker (``RoomBroker/roomIdle(_:)``). The next join opens it again.
  private func closeIfIdle(_ cell: HubRoomCell, mark: UInt64) {
    roomOrder.withLock { _ in
      let idle = directory.withLock { directory -> Bool in
        guard directory.rooms[cell.name] === cell else { return false }
        let closed = cell.state.withLock { r -> Bool in
          guard r.idleMark == mark, r.members.isEmpty, case .ready = r.phase else { return false }
          r.phase = .closed
          r.history = MessageRing(capacity: 0)
          return true
        }
        if closed { directory.rooms[cell.name] = nil }
        return closed
      }
      if idle { broker.roomIdle(cell.name) }
    }
  }
}
