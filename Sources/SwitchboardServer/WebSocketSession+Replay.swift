import SwitchboardIO
import SwitchboardTLS
import SwitchboardWire

/// A join's history (the URL's `since`, a `join` frame's): slices of ``HistoryReplay``,
/// each a `history` frame, the next one encoded only when the connection is writable again
/// (docs/ARCHITECTURE.md, "Replays"; docs/PROTOCOLS.md for the frames).
extension WebSocketSession {
  /// Starts sending `next`. A replay still under way ends where it is (a second join
  /// moves on; its held output leaves first, in order).
  func startReplay(_ next: HistoryReplay) {
    if let previous = replay.take() {
      for bytes in previous.takeHeld() { connection.write(bytes) }
    }
    replay = next
    pumpReplay()
  }

  /// Sends slices while the connection takes them (until its queue is past the
  /// high-water mark), then the output held behind the last one.
  func pumpReplay() {
    while let current = replay, connection.isWritable, !connection.isClosed {
      switch current.phase {
      case .sending:
        let first = current.atStart
        let slice = current.nextSlice()
        // Only the first slice can start after a gap; the others follow on without one.
        sendTextNow(
          JSONDialect.history(
            slice, epoch: current.epoch, recovered: first ? current.recovered : true, more: current.phase == .sending,
            requested: current.requested))
      case .sent:
        replay = nil
        for bytes in current.takeHeld() { connection.write(bytes) }
        if let limit = current.requestAfter { answerHistoryRequest(limit: limit) }
      }
    }
  }

  /// Answers a `history` frame: the last `limit` kept messages of the member's room as a
  /// replay of its own (the same slices as a join's, marked `"requested":true`), after the
  /// replay under way if there is one.
  func answerHistoryRequest(limit: Int) {
    guard let room = context.hub.member(memberID)?.room else { return }
    if let current = replay {
      current.requestAfter = limit
      return
    }
    let messages = context.hub.history(room: room, last: limit)
    startReplay(
      HistoryReplay(messages, epoch: context.hub.epoch(room: room) ?? "", recovered: true, requested: true))
  }

  func stream(_ connection: ByteStream, writabilityChanged writable: Bool) {
    if writable { pumpReplay() }
  }
}
