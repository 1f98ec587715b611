import SwitchboardIO

/// One keepalive timer per loop for its WebSocket sessions. Each tick (every
/// `webSocketPingInterval`) runs every open session's own keepalive step
/// (``WebSocketSession/checkAlive()``: ping a peer quiet for half an interval, drop one that
/// left a ping unanswered for a whole one), so a session holds no timer, no timer-heap entry
/// and no closure of its own (docs/BENCHMARKS.md, "Memory per idle connection"). The
/// verdicts are the same as with a timer per session: how long a silent peer lasts depends
/// on when it was last heard relative to the ticks either way (between 1.5 and 2.5
/// intervals).
extension LoopContext {
  /// A WebSocket session opened on this loop; the first starts the keepalive.
  func webSocketOpened() {
    webSocketCount += 1
    guard keepalive == nil else { return }
    // Weak like the stats tick: the loop's timer heap must not keep the context alive.
    keepalive = loop.scheduleRepeatingLocal(every: configuration.webSocketPingInterval) { [weak self] in
      self?.keepaliveTick()
    }
  }

  /// A WebSocket session on this loop closed; the last stops the keepalive (a quiet loop
  /// keeps no timer).
  func webSocketClosed() {
    webSocketCount -= 1
    guard webSocketCount == 0 else { return }
    keepalive?.cancel()
    keepalive = nil
  }

  private func keepaliveTick() {
    // A snapshot: a dropped peer leaves `sessions` while the tick goes on.
    let open = sessions.values.compactMap { $0 as? WebSocketSession }
    for session in open { session.checkAlive() }
  }
}
