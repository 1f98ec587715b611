import Dispatch
import Synchronization
import SwitchboardIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs one benchmark: opens the connections on the client event loops, warms up,
/// measures, drains, and gathers a ``BenchResult``. The main thread only orchestrates
/// and prints progress; every message is handled on the loops.
public enum BenchRunner {
  /// Runs `config`, calling `progress` about once a second with a status line.
  /// - Throws: ``BenchError`` when the options are inconsistent or the address is bad.
  public static func run(_ config: BenchConfiguration, progress: @escaping (String) -> Void) throws(BenchError) -> BenchResult {
    try config.validate()
    let fileLimit = ProcessStats.raiseFileLimit()
    if fileLimit > 0 && fileLimit < config.connections + 64 {
      progress("warning: the descriptor limit is \(fileLimit), below \(config.connections) connections")
    }
    let address: SocketAddress
    do {
      address = try SocketAddress.resolve(host: config.target.host, port: config.target.port)
    } catch {
      throw BenchError("\(error)")
    }
    let group: EventLoopGroup
    do {
      group = try EventLoopGroup(count: max(1, config.loops))
    } catch {
      throw BenchError("cannot start event loops: \(error)")
    }
    defer { group.shutdownGracefully() }
    let loops = group.loops.enumerated().map { i, loop in
      BenchLoop(loop: loop, index: i, loopCount: group.loops.count, config: config, address: address)
    }
    var result = BenchResult(config: config)
    let pid = config.serverPID
    if let pid { result.serverRSSBeforeKiB = ProcessStats.statusKiB(pid: pid, field: "VmRSS") }

    // Connect.
    let runStart = monotonicNanos()
    for bench in loops { bench.loop.execute { bench.start() } }
    let connectDeadline = runStart &+ UInt64(config.connectTimeout * 1e9)
    var reporter = ProgressReporter(loops: loops, start: runStart, config: config, progress: progress)
    while true {
      let (opened, failed) = reporter.connectionTotals()
      if opened + failed >= config.connections || monotonicNanos() >= connectDeadline { break }
      reporter.sleep(untilAtMost: connectDeadline, phase: "connect")
    }
    result.connectSeconds = Double(monotonicNanos() - runStart) / 1e9

    if config.idle {
      let holdEnd = monotonicNanos() &+ UInt64(config.duration * 1e9)
      reporter.sleep(until: holdEnd, phase: "hold")
      if let pid {
        result.serverRSSKiB = ProcessStats.statusKiB(pid: pid, field: "VmRSS")
        result.serverHWMKiB = ProcessStats.statusKiB(pid: pid, field: "VmHWM")
      }
    } else {
      // Let the join traffic (presence frames to every member with the JSON protocol)
      // die down first: start once nothing has arrived for 300 ms (30 s at most).
      let settleStart = monotonicNanos()
      let settleDeadline = settleStart &+ 30_000_000_000
      var lastFrames = -1
      var quietSince = settleStart
      while monotonicNanos() < settleDeadline {
        let frames = reporter.totals().frames
        if frames != lastFrames {
          lastFrames = frames
          quietSince = monotonicNanos()
        } else if monotonicNanos() - quietSince >= 300_000_000 {
          break
        }
        reporter.sleep(untilAtMost: settleDeadline, phase: "settle")
      }
      result.settleSeconds = Double(monotonicNanos() - settleStart) / 1e9
      let sendStart = monotonicNanos() &+ 20_000_000
      let measureStart = sendStart &+ UInt64(config.warmup * 1e9)
      let measureEnd = measureStart &+ UInt64(config.duration * 1e9)
      for bench in loops {
        bench.loop.execute { bench.beginSending(sendStart: sendStart, measureStart: measureStart, measureEnd: measureEnd) }
      }
      reporter.sleep(until: measureStart, phase: "warmup")
      let cpuBefore = ProcessStats.selfCPUSeconds()
      let serverBefore = pid.flatMap { ProcessStats.cpuSeconds(pid: $0) }
      reporter.sleep(until: measureEnd, phase: "measure")
      result.clientCPUSeconds = ProcessStats.selfCPUSeconds() - cpuBefore
      if let pid, let before = serverBefore, let after = ProcessStats.cpuSeconds(pid: pid) {
        result.serverCPUSeconds = after - before
        result.serverRSSKiB = ProcessStats.statusKiB(pid: pid, field: "VmRSS")
      }
      // Drain: wait for what is still in flight, until nothing more arrives for a second.
      let drainDeadline = measureEnd &+ UInt64(config.drainTimeout * 1e9)
      var lastDelivered = -1
      var lastChange = monotonicNanos()
      while monotonicNanos() < drainDeadline {
        let t = reporter.totals()
        if t.deliveredMeasured >= t.sentMeasured * config.expectedRecipients { break }
        // Progress is any delivery: a backlog of warmup messages may come first.
        if t.delivered != lastDelivered {
          lastDelivered = t.delivered
          lastChange = monotonicNanos()
        } else if monotonicNanos() - lastChange > 1_000_000_000 {
          break
        }
        usleep(20_000)
      }
      if let pid { result.serverHWMKiB = ProcessStats.statusKiB(pid: pid, field: "VmHWM") }
    }

    // Collect and close.
    let snapshots = Mutex<[BenchLoopSnapshot]>([])
    let done = DispatchSemaphore(value: 0)
    for bench in loops {
      bench.loop.execute {
        let s = bench.snapshot()
        bench.stop()
        snapshots.withLock { $0.append(s) }
        done.signal()
      }
    }
    for _ in loops { done.wait() }
    let totals = reporter.totals()
    for s in snapshots.withLock({ $0 }) {
      result.latency.merge(s.latency)
      result.connectTimes.merge(s.connect)
      result.notes.append(contentsOf: s.notes)
    }
    result.opened = totals.opened
    result.failed = totals.failed
    result.closedDuringRun = totals.closed
    result.sent = totals.sentMeasured
    result.delivered = totals.deliveredMeasured
    return result
  }
}

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
