import SwitchboardIO

/// One deadline sweep per loop for its HTTP sessions, instead of two timers per connection.
/// Every HTTP connection has a request deadline (`--http-request-timeout`) and an idle one
/// (30 s); as timers of their own they cost each connection two `Scheduled` objects, two
/// closure contexts and a weak-reference side table, re-armed on every read and — for the
/// WebSocket upgrades that are most HTTP connections here — cancelled at once and freed a
/// second later, leaving holes between the sessions that stay (docs/BENCHMARKS.md, "Memory
/// per idle connection"). The sweep starts with the loop's first
/// HTTP session and stops at the first tick that finds none (not when the last one leaves:
/// connections opened one after another would each start a timer of their own, left in the
/// heap until the next cancelled-timer sweep); a deadline is acted on within one sweep
/// period of when it falls, never before.
extension LoopContext {
  /// How often the sweep runs: a tenth of the request timeout, between 10 ms and 1 s (a
  /// 10 s timeout answers 408 within 10–11 s; the 30 s idle close within 30–31 s).
  static func httpSweepPeriod(requestTimeout: Duration) -> Duration {
    guard requestTimeout > .zero else { return .seconds(1) }
    return min(.seconds(1), max(.milliseconds(10), requestTimeout / 10))
  }

  /// `session` serves HTTP on this loop from now on; the first starts the sweep.
  func httpSessionOpened(_ session: HTTPSession, key: ObjectIdentifier) {
    httpSessions[key] = session
    guard httpSweep == nil else { return }
    let period = Self.httpSweepPeriod(requestTimeout: configuration.limits.httpRequestTimeout)
    // Weak like the stats tick: the loop's timer heap must not keep the context alive.
    httpSweep = loop.scheduleRepeatingLocal(every: period) { [weak self] in
      self?.httpSweepTick()
    }
  }

  /// The session under `key` closed or was upgraded.
  func httpSessionEnded(key: ObjectIdentifier) {
    httpSessions[key] = nil
  }

  private func httpSweepTick() {
    guard !httpSessions.isEmpty else {
      httpSweep?.cancel()
      httpSweep = nil
      return
    }
    let now = Deadline.now()
    // A snapshot: a session answered 408 or closed leaves the table while the sweep goes on.
    let open = Array(httpSessions.values)
    for session in open { session.checkDeadlines(now: now) }
  }
}
