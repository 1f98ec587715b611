import SwitchboardIO
import SwitchboardTLS

/// The part of a benchmark run that lives on one client event loop: its connections,
/// the send schedule of its senders, and its latency histogram. Connection `g` of the run
/// lives on loop `g % loops` at index `g / loops`.
final class BenchLoop: @unchecked Sendable {
  // Safety: everything but `counters` is touched only on `loop`'s thread: the main
  // thread reaches it through `loop.execute`. So the per-message state skips Swift's
  // dynamic exclusivity checks (as TCPConnection's does): the generator must stay cheaper
  // per message than the servers it measures.

  let loop: EventLoop
  let index: Int
  let loopCount: Int
  let config: BenchConfiguration
  /// The addresses of ``BenchConfiguration/targets``, in that order.
  let addresses: [SocketAddress]
  let counters = BenchCounters()

  @exclusivity(unchecked) private(set) var clients: [BenchClient] = []
  @exclusivity(unchecked) private var senders: [BenchClient] = []
  @exclusivity(unchecked) private var nextToConnect = 0
  @exclusivity(unchecked) private var connectsInFlight = 0
  private let connectLimit: Int

  /// Send-phase times (monotonic ns), set when the main thread starts sending.
  @exclusivity(unchecked) private var sendStart: UInt64 = .max
  @exclusivity(unchecked) private var measureStart: UInt64 = .max
  @exclusivity(unchecked) private var measureEnd: UInt64 = .max
  @exclusivity(unchecked) private var perSenderRate: Double = 0
  @exclusivity(unchecked) private var window: Int
  @exclusivity(unchecked) private(set) var stopping = false
  /// The receive time for the read being processed.
  @exclusivity(unchecked) var now: UInt64 = 0

  @exclusivity(unchecked) private var latency = LatencyHistogram()
  @exclusivity(unchecked) private var connectTimes = LatencyHistogram()
  @exclusivity(unchecked) private var notes: [String: Int] = [:]
  @exclusivity(unchecked) private var opened = 0, failed = 0, closed = 0
  @exclusivity(unchecked) private var sent = 0, sentMeasured = 0, delivered = 0, deliveredMeasured = 0
  /// Frames or lines received (for the settle phase).
  @exclusivity(unchecked) var frames = 0
  @exclusivity(unchecked) private var refillQueue: [BenchClient] = []
  @exclusivity(unchecked) private var batch: [UInt8] = []
  @exclusivity(unchecked) private var text: [UInt8] = []
  @exclusivity(unchecked) private var ticker: Scheduled?

  init(loop: EventLoop, index: Int, loopCount: Int, config: BenchConfiguration, addresses: [SocketAddress]) {
    self.loop = loop
    self.index = index
    self.loopCount = loopCount
    self.config = config
    self.addresses = addresses
    self.window = config.effectiveWindow
    self.connectLimit = max(1, config.connectConcurrency / loopCount)
  }

  // MARK: Connecting

  /// The client context of a `wss://` run, made once per loop. It verifies nothing: the
  /// servers measured are on loopback with throwaway certificates, and what is measured is
  /// the cipher's cost, not the trust decision.
  @exclusivity(unchecked) private var tlsContextCache: TLSContext?

  func tlsContext() throws(TLSError) -> TLSContext {
    if let tlsContextCache { return tlsContextCache }
    let context = try TLSContext(configuration: TLSConfiguration(verify: false))
    tlsContextCache = context
    return context
  }

  /// Creates this loop's connections and starts opening them. Loop thread.
  func start() {
    var g = index
    while g < config.connections {
      let client = BenchClient(id: g, owner: self)
      if !config.idle && g < config.senders {
        client.isSender = true
        if config.echoesToSender {
          client.observerID = g
        } else if g + loopCount < config.connections {
          client.observerID = g + loopCount
        } else if g - loopCount >= 0 {
          client.observerID = g - loopCount
        }
        senders.append(client)
      }
      clients.append(client)
      g += loopCount
    }
    connectMore()
    ticker = loop.scheduleRepeatingLocal(every: .milliseconds(1)) { [self] in tick() }
  }

  private func connectMore() {
    while connectsInFlight < connectLimit && nextToConnect < clients.count && !stopping {
      let client = clients[nextToConnect]
      nextToConnect += 1
      connectsInFlight += 1
      client.connect(to: addresses[config.targetIndex(ofConnection: client.id)])
    }
  }

  func connectSucceeded(_ client: BenchClient, nanos: UInt64) {
    opened += 1
    connectTimes.record(nanos)
    connectsInFlight -= 1
    connectMore()
  }

  func connectFailed(_ client: BenchClient, _ error: any Error) {
    failed += 1
    note("connect: \(error)")
    connectsInFlight -= 1
    connectMore()
  }

  func closedUnexpectedly(_ client: BenchClient, _ error: (any Error)?) {
    guard !stopping else { return }
    closed += 1
    note("closed during the run: \(error.map { "\($0)" } ?? "by the server")")
  }

  func note(_ text: String) {
    notes[text, default: 0] += 1
  }

  // MARK: Sending

  /// Starts the send schedule. Loop thread.
  func beginSending(sendStart: UInt64, measureStart: UInt64, measureEnd: UInt64) {
    self.sendStart = sendStart
    self.measureStart = measureStart
    self.measureEnd = measureEnd
    perSenderRate = config.senders > 0 ? config.rate / Double(config.senders) : 0
    for client in senders {
      // Spread the senders' schedules over one message interval.
      let offset = perSenderRate > 0 ? Double(client.id) / Double(config.senders) / perSenderRate * 1e9 : 0
      client.scheduleStart = sendStart &+ UInt64(offset)
    }
  }

  private func tick() {
    let t = monotonicNanos()
    if t >= sendStart && t < measureEnd && !stopping {
      for client in senders { refill(client, at: t) }
    }
    publish()
  }

  /// Sends what `client`'s schedule and window allow.
  private func refill(_ client: BenchClient, at t: UInt64) {
    guard client.canSend, t >= client.scheduleStart, t < measureEnd else { return }
    var allowed = client.observerID >= 0 ? window - client.inflight : Int.max
    if perSenderRate > 0 {
      let due = Int(Double(t - client.scheduleStart) * perSenderRate / 1e9) + 1
      allowed = min(allowed, due - Int(client.seq))
    } else {
      allowed = min(allowed, window)
    }
    guard allowed > 0 else { return }
    client.send(count: allowed, nanos: t, batch: &batch, text: &text)
    sent += allowed
    if t >= measureStart { sentMeasured += allowed }
  }

  func queueRefill(_ client: BenchClient) {
    guard !client.queuedForRefill else { return }
    client.queuedForRefill = true
    refillQueue.append(client)
  }

  /// Tops up the windows of senders whose messages came back during this read.
  func refillQueuedSenders() {
    guard !refillQueue.isEmpty else { return }
    let t = monotonicNanos()
    for client in refillQueue {
      client.queuedForRefill = false
      if !stopping && t >= sendStart { refill(client, at: t) }
    }
    refillQueue.removeAll(keepingCapacity: true)
  }

  // MARK: Receiving

  /// One message text arrived at `receiver` (at ``now``).
  @inline(__always)
  func deliver(_ p: UnsafePointer<UInt8>, count: Int, to receiver: BenchClient) {
    guard let (sender, nanos) = BenchMessage.parse(p, count: count) else { return }
    delivered += 1
    if nanos >= measureStart && nanos < measureEnd {
      deliveredMeasured += 1
      latency.record(now > nanos ? now - nanos : 0)
    }
    // Window accounting: is the receiver this sender's observer?
    if sender % loopCount == index {
      let local = sender / loopCount
      if local < clients.count {
        let s = clients[local]
        if s.observerID == receiver.id && s.inflight > 0 {
          s.inflight -= 1
          if perSenderRate <= 0 { queueRefill(s) }
        }
      }
    }
  }

  // MARK: Ending

  private func publish() {
    counters.opened.store(opened, ordering: .relaxed)
    counters.failed.store(failed, ordering: .relaxed)
    counters.closed.store(closed, ordering: .relaxed)
    counters.sent.store(sent, ordering: .relaxed)
    counters.sentMeasured.store(sentMeasured, ordering: .relaxed)
    counters.delivered.store(delivered, ordering: .relaxed)
    counters.deliveredMeasured.store(deliveredMeasured, ordering: .relaxed)
    counters.frames.store(frames, ordering: .relaxed)
  }

  /// The histograms and notes so far. Loop thread.
  func snapshot() -> BenchLoopSnapshot {
    publish()
    var s = BenchLoopSnapshot(latency: latency, connect: connectTimes)
    s.notes = notes.sorted { $0.value > $1.value }.map { "\($0.value)× \($0.key)" }
    return s
  }

  /// Stops sending and closes every connection. Loop thread.
  func stop() {
    stopping = true
    ticker?.cancel()
    publish()
    for client in clients { client.finish() }
  }
}
