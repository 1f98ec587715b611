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
    let addresses: [SocketAddress]
    do {
      addresses = try config.targets.map { try SocketAddress.resolve(host: $0.host, port: $0.port) }
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
      BenchLoop(loop: loop, index: i, loopCount: group.loops.count, config: config, addresses: addresses)
    }
    var result = BenchResult(config: config)
    let pid = config.serverPID
    if let pid {
      result.serverRSSBeforeKiB = ProcessStats.statusKiB(pid: pid, field: "VmRSS")
      result.serverAnonBeforeKiB = ProcessStats.statusKiB(pid: pid, field: "RssAnon")
      result.serverDescriptorsBefore = ProcessStats.descriptorCount(pid: pid)
    }

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
        result.serverAnonKiB = ProcessStats.statusKiB(pid: pid, field: "RssAnon")
        result.serverDescriptors = ProcessStats.descriptorCount(pid: pid)
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
      let sendStart = sendStartNanos(config, progress: progress)
      let measureStart = sendStart &+ UInt64(config.warmup * 1e9)
      let measureEnd = measureStart &+ UInt64(config.duration * 1e9)
      for bench in loops {
        bench.loop.execute { bench.beginSending(sendStart: sendStart, measureStart: measureStart, measureEnd: measureEnd) }
      }
      reporter.sleep(until: measureStart, phase: "warmup")
      let cpuBefore = ProcessStats.selfCPUSeconds()
      let serverBefore = pid.flatMap { ProcessStats.cpuTimes(pid: $0) }
      reporter.sleep(until: measureEnd, phase: "measure")
      result.clientCPUSeconds = ProcessStats.selfCPUSeconds() - cpuBefore
      if let pid, let before = serverBefore, let after = ProcessStats.cpuTimes(pid: pid) {
        let window = after.since(before)
        result.serverCPUSeconds = window.total
        result.serverUserCPUSeconds = window.user
        result.serverRSSKiB = ProcessStats.statusKiB(pid: pid, field: "VmRSS")
      }
      // Drain: wait for what is still in flight, until nothing more arrives for a second
      // (three when receiving only: another process's messages may be further behind).
      let quiet: UInt64 = config.receivesOnly ? 3_000_000_000 : 1_000_000_000
      let drainDeadline = measureEnd &+ UInt64(config.drainTimeout * 1e9)
      var lastDelivered = -1
      var lastChange = monotonicNanos()
      while monotonicNanos() < drainDeadline {
        let t = reporter.totals()
        if !config.receivesOnly && t.deliveredMeasured >= t.sentMeasured * config.expectedRecipients { break }
        // Progress is any delivery: a backlog of warmup messages may come first.
        if t.delivered != lastDelivered {
          lastDelivered = t.delivered
          lastChange = monotonicNanos()
        } else if monotonicNanos() - lastChange > quiet {
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

  /// When sending starts (monotonic ns): 20 ms from now, or `--start-at`. The wall clock
  /// names that moment for every process; the window runs on the monotonic clock, which
  /// the processes of one machine share. A process that comes late still uses the named
  /// moment, so its window is everyone's: a late sender sends only in what is left of it,
  /// and what it sends is stamped, and counted, inside the same window as the others count.
  private static func sendStartNanos(_ config: BenchConfiguration, progress: (String) -> Void) -> UInt64 {
    let now = monotonicNanos()
    guard let startAt = config.startAt else { return now &+ 20_000_000 }
    let wait = startAt - wallSeconds()
    if wait >= 0 { return now &+ UInt64(wait * 1e9) }
    progress("warning: --start-at was \(Format.fixed(-wait, 1)) s ago: measuring what is left of the window")
    return now &- min(now, UInt64(-wait * 1e9))
  }

  /// Seconds since the Unix epoch.
  private static func wallSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }
}
