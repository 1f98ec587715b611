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
        // The next waiting request is answered, the others wait behind its answer (handed
        // over before it starts: a short answer is sent at once).
        if let limit = current.requestsAfter.first, let next = historyAnswer(limit: limit) {
          next.inherit(current.requestsAfter.dropFirst())
          startReplay(next)
        }
      }
    }
  }

  /// Answers a `history` frame: the last `limit` kept messages of the member's room as a
  /// replay of its own (the same slices as a join's, marked `"requested":true`), after the
  /// replay under way if there is one.
  func answerHistoryRequest(limit: Int) {
    if let current = replay {
      if !current.requestAfter(limit) { dropAsTooSlow() }
      return
    }
    if let answer = historyAnswer(limit: limit) { startReplay(answer) }
  }

  /// The replay that answers a `history` request for `limit` messages, as the room is now;
  /// `nil` when the member is in no room.
  private func historyAnswer(limit: Int) -> HistoryReplay? {
    guard let room = context.hub.member(memberID)?.room else { return nil }
    return HistoryReplay(
      context.hub.history(room: room, last: limit), epoch: context.hub.epoch(room: room) ?? "", recovered: true,
      requested: true)
  }

  func stream(_ connection: ByteStream, writabilityChanged writable: Bool) {
    if writable { pumpReplay() }
  }
}
