#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The once-a-second status line.
struct ProgressReporter {
  let loops: [BenchLoop]
  let start: UInt64
  let config: BenchConfiguration
  let progress: (String) -> Void
  private var nextLine: UInt64
  private var lastSent = 0
  private var lastDelivered = 0
  private var lastTime: UInt64

  init(loops: [BenchLoop], start: UInt64, config: BenchConfiguration, progress: @escaping (String) -> Void) {
    self.loops = loops
    self.start = start
    self.config = config
    self.progress = progress
    nextLine = start &+ 1_000_000_000
    lastTime = start
  }

  struct Totals {
    var opened = 0, failed = 0, closed = 0, sent = 0, sentMeasured = 0, delivered = 0, deliveredMeasured = 0
    var frames = 0
  }

  func totals() -> Totals {
    var t = Totals()
    for l in loops {
      let c = l.counters
      t.opened += c.opened.load(ordering: .relaxed)
      t.failed += c.failed.load(ordering: .relaxed)
      t.closed += c.closed.load(ordering: .relaxed)
      t.sent += c.sent.load(ordering: .relaxed)
      t.sentMeasured += c.sentMeasured.load(ordering: .relaxed)
      t.delivered += c.delivered.load(ordering: .relaxed)
      t.deliveredMeasured += c.deliveredMeasured.load(ordering: .relaxed)
      t.frames += c.frames.load(ordering: .relaxed)
    }
    return t
  }

  func connectionTotals() -> (Int, Int) {
    let t = totals()
    return (t.opened, t.failed)
  }

  /// Sleeps until `deadline`, printing a line at every whole second since the start.
  mutating func sleep(until deadline: UInt64, phase: String) {
    while true {
      let now = monotonicNanos()
      if now >= deadline { return }
      if now >= nextLine {
        line(phase: phase, now: now)
        nextLine &+= 1_000_000_000
        continue
      }
      let wake = min(deadline, nextLine)
      usleep(UInt32(min((wake - now) / 1000 + 1, 1_000_000)))
    }
  }

  /// Sleeps a short while (for polling) but prints the progress line when due.
  mutating func sleep(untilAtMost deadline: UInt64, phase: String) {
    sleep(until: min(deadline, monotonicNanos() &+ 20_000_000), phase: phase)
  }

  private mutating func line(phase: String, now: UInt64) {
    let t = totals()
    let dt = Double(now - lastTime) / 1e9
    let sentRate = Double(t.sent - lastSent) / max(dt, 1e-9)
    let deliveredRate = Double(t.delivered - lastDelivered) / max(dt, 1e-9)
    lastSent = t.sent
    lastDelivered = t.delivered
    lastTime = now
    let elapsed = Double(now - start) / 1e9
    var s = "[\(Format.fixed(elapsed, 0))s] \(phase.padding(7)) open \(t.opened)/\(config.connections)"
    if t.failed > 0 { s += " failed \(t.failed)" }
    if t.closed > 0 { s += " closed \(t.closed)" }
    if !config.idle {
      s += "  sent/s \(Format.count(sentRate))  delivered/s \(Format.count(deliveredRate))"
    }
    progress(s)
  }
}
