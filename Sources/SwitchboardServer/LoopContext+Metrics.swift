import SwitchboardChat
import SwitchboardIO
import SwitchboardTLS

extension LoopContext {
  /// Starts the loop's metrics tick (on the loop): every ``LoopMetrics/tickInterval`` it
  /// records how late it fired — the loop lag, what every timer and every queued task on
  /// this loop waited too — and every tenth tick it samples the gauges. Off the hot path:
  /// nothing here runs per message.
  func startStatsTick() {
    loop.assertInEventLoop()
    let interval = LoopMetrics.tickInterval
    var due = Deadline.now().adding(interval)
    var ticks = 0
    sampleGauges()
    statsTick = loop.scheduleRepeatingLocal(every: interval) { [weak self] in
      guard let self else { return }
      let now = Deadline.now()
      self.stats.recordLag(nanoseconds: now.nanoseconds &- min(due.nanoseconds, now.nanoseconds))
      due = now.adding(interval)
      ticks += 1
      guard ticks % 10 == 0 else { return }
      // As a task, after this iteration's timers: a repeating timer is out of the heap
      // while it runs, so sampling here would miss those that fire with this one.
      let bound = LoopBound(self, on: self.loop)
      self.loop.execute {
        bound.value.sampleGauges()
        // The admin console's sample, once a second on the first loop (ServerSampler.swift).
        if bound.value.loop.index == 0 { bound.value.core.sampler.sample(bound.value.core) }
      }
    }
  }

  /// Timers, descriptors and queued output of this loop, now.
  func sampleGauges() {
    stats.timers.store(loop.timerCount, ordering: .relaxed)
    stats.descriptors.store(loop.registeredCount, ordering: .relaxed)
    var queued = 0
    for session in sessions.values {
      if let line = session as? LineSession {
        queued += line.connection.bufferedBytes
      } else if let webSocket = session as? WebSocketSession {
        queued += webSocket.connection.bufferedBytes
      }
    }
    for http in httpSessions.values { queued += http.connection.bufferedBytes }
    stats.queuedBytes.store(queued, ordering: .relaxed)
  }

  /// Counts and logs (once, at the verdict) a member dropped for not reading.
  func reportSlowConsumer(_ connection: ByteStream, member: MemberID, dialect: String) {
    metrics.slowConsumers.add(1, ordering: .relaxed)
    if dialect == "line" {
      metrics.slowLineConsumers.add(1, ordering: .relaxed)
    } else {
      metrics.slowWebSocketConsumers.add(1, ordering: .relaxed)
    }
    logger.notice(
      "dropped a slow consumer",
      metadata: .connection(
        peer: connection.remoteAddress, member: member, dialect: dialect,
        error: "more than \(connection.limits.maximumBuffered) bytes unread"))
  }
}
