import Synchronization
import SwitchboardAuth
import SwitchboardChat
import SwitchboardHTTP
import SwitchboardIO

/// What `serve --webhook` sends, where, and how hard it tries (docs/API.md, "Webhooks").
public struct WebhookConfiguration: Sendable {
  /// The receivers; each gets every event, from a queue of its own.
  public var targets: [OutboundURL]
  /// The events sent.
  public var events: Set<WebhookEventType>
  /// This node's name in each batch's `node`.
  public var node: String
  /// Events waiting per target, at most; more are dropped (and counted).
  public var queueLimit: Int
  /// Events per POST, at most.
  public var batchLimit: Int
  /// How long a receiver has to answer one POST.
  public var timeout: Duration
  /// The first retry's delay; each further one doubles it, up to ``retryMaxDelay``, each
  /// with up to a quarter added or taken at random (jitter).
  public var retryDelay: Duration
  /// The longest delay between retries.
  public var retryMaxDelay: Duration
  let key: TokenKey

  /// The default for ``queueLimit``: 10,000 events per target.
  public static let defaultQueueLimit = 10_000

  /// A configuration signing with `secret`.
  /// - Throws: ``WebhookError`` when `targets` is empty or the secret is shorter than
  ///   32 bytes (or this build has no HMAC).
  public init(
    targets: [OutboundURL], secret: [UInt8], events: Set<WebhookEventType> = WebhookEventType.defaults,
    node: String, queueLimit: Int = defaultQueueLimit, batchLimit: Int = 100, timeout: Duration = .seconds(5),
    retryDelay: Duration = .milliseconds(500), retryMaxDelay: Duration = .seconds(30)
  ) throws(WebhookError) {
    guard !targets.isEmpty else { throw WebhookError("no webhook target") }
    do {
      key = try TokenKey(secret: secret)
    } catch {
      throw WebhookError("webhook secret: \(error)")
    }
    self.targets = targets
    self.events = events
    self.node = node
    self.queueLimit = max(1, queueLimit)
    self.batchLimit = max(1, batchLimit)
    self.timeout = timeout
    self.retryDelay = retryDelay
    self.retryMaxDelay = retryMaxDelay
  }

  /// The `X-Switchboard-Signature` value for `body` sent at `timestamp` (Unix seconds):
  /// `sha256=` and the lower-case hex HMAC-SHA256, keyed with the secret, of the
  /// timestamp's decimal digits, a `.`, and the body's bytes.
  public func signature(timestamp: Int64, body: [UInt8]) -> String {
    let input = Array("\(timestamp).".utf8) + body
    let mac = (try? key.signature(over: input)) ?? []
    return "sha256=" + mac.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
  }
}

/// Sends webhook events to every target: a bounded queue per target, batches, retries
/// with exponential backoff and jitter, in order (a batch that failed goes again before
/// anything queued after it), and counters for `/metrics`.
///
/// ``enqueue(_:)`` never blocks: it takes a short lock, appends (or drops, counted, when
/// the target's queue is full) and, when the target was idle, posts one task to the
/// outbound client's loop. Everything slow — connecting, waiting for an answer, backing off
/// — happens on that loop, never on a server loop.
public final class WebhookDispatcher: Sendable {
  /// What a target is doing.
  enum Phase: Sendable, Equatable {
    /// Nothing queued, nothing in flight.
    case idle
    /// A send is queued on the client's loop.
    case scheduled
    /// A batch of this many events (the queue's first) is in flight.
    case sending(count: Int)
    /// The last batch failed; the next attempt is scheduled.
    case backingOff(attempt: Int)

    func allows(_ next: Phase) -> Bool {
      switch (self, next) {
      case (.idle, .scheduled), (.scheduled, .sending), (.scheduled, .idle), (.sending, .scheduled),
        (.sending, .idle), (.sending, .backingOff), (.backingOff, .scheduled), (.backingOff, .idle):
        true
      default: false
      }
    }
  }

  struct Target: Sendable {
    let url: OutboundURL
    var queue: [WebhookEvent] = []
    /// Index of the first event still queued (the array is compacted now and then).
    var head = 0
    var phase = Phase.idle
    var failures = 0
    var sent = 0
    var failed = 0
    var retried = 0
    var dropped = 0
    var lastError: String?
    var lastErrorTime: Int64 = 0

    var depth: Int { queue.count - head }

    mutating func move(to next: Phase) {
      precondition(phase.allows(next), "webhook target: invalid transition \(phase) → \(next)")
      phase = next
    }

    mutating func removeFirst(_ count: Int) {
      head += count
      if head == queue.count {
        queue.removeAll(keepingCapacity: true)
        head = 0
      } else if head > 1024, head * 2 > queue.count {
        queue.removeSubrange(0..<head)
        head = 0
      }
    }
  }

  /// The configuration.
  public let configuration: WebhookConfiguration
  private let client: OutboundHTTPClient
  private let targets: Mutex<[Target]>
  private let closed = Atomic<Bool>(false)

  /// A dispatcher posting through `client` (its loop does the work).
  public init(configuration: WebhookConfiguration, client: OutboundHTTPClient) {
    self.configuration = configuration
    self.client = client
    targets = Mutex(configuration.targets.map { Target(url: $0) })
  }

  /// Queues `events` (those of a kind the configuration sends) for every target. Returns
  /// at once; callable from any thread.
  public func enqueue(_ events: [WebhookEvent]) {
    let wanted = events.filter { configuration.events.contains($0.type) }
    guard !wanted.isEmpty, !closed.load(ordering: .relaxed) else { return }
    let limit = configuration.queueLimit
    let kicks: [Int] = targets.withLock { targets in
      var kicks: [Int] = []
      for index in targets.indices {
        let room = max(0, limit - targets[index].depth)
        targets[index].queue.append(contentsOf: wanted.prefix(room))
        targets[index].dropped += wanted.count - min(room, wanted.count)
        if targets[index].phase == .idle, targets[index].depth > 0 {
          targets[index].move(to: .scheduled)
          kicks.append(index)
        }
      }
      return kicks
    }
    for index in kicks { client.loop.execute { self.send(index) } }
  }

  /// Stops sending: what is still queued is dropped (counted), requests in flight end
  /// with the client.
  public func close() {
    guard !closed.exchange(true, ordering: .relaxed) else { return }
    client.shutdown()
  }

  /// Events waiting (or in flight) for every target.
  public var queueDepth: Int { targets.withLock { $0.reduce(0) { $0 + $1.depth } } }

  /// Events the receivers accepted (2xx), summed over targets.
  public var sentCount: Int { targets.withLock { $0.reduce(0) { $0 + $1.sent } } }

  /// Events dropped because a queue was full, summed over targets.
  public var droppedCount: Int { targets.withLock { $0.reduce(0) { $0 + $1.dropped } } }

  // MARK: On the client's loop

  private func send(_ index: Int) {
    let batch: [WebhookEvent]? = targets.withLock { targets in
      guard !closed.load(ordering: .relaxed), targets[index].depth > 0 else {
        targets[index].move(to: .idle)
        return nil
      }
      let target = targets[index]
      let end = min(target.queue.count, target.head + configuration.batchLimit)
      let batch = Array(target.queue[target.head..<end])
      targets[index].move(to: .sending(count: batch.count))
      return batch
    }
    guard let batch else { return }
    let now = ChatClock.milliseconds()
    let body = WebhookEvent.batch(batch, node: configuration.node, time: now)
    let timestamp = now / 1000
    let headers: HTTPHeaders = [
      "Content-Type": "application/json",
      "User-Agent": "Switchboard-Webhooks",
      "X-Switchboard-Timestamp": "\(timestamp)",
      "X-Switchboard-Signature": configuration.signature(timestamp: timestamp, body: body),
    ]
    let url = targets.withLock { $0[index].url }
    client.post(url, headers: headers, body: body, timeout: configuration.timeout) { result in
      self.answered(index, count: batch.count, result)
    }
  }

  private func answered(_ index: Int, count: Int, _ result: Result<OutboundHTTPResponse, OutboundHTTPError>) {
    enum Next { case send, wait(Duration), stop }
    let next: Next = targets.withLock { targets in
      guard !closed.load(ordering: .relaxed) else {
        targets[index].move(to: .idle)
        return .stop
      }
      switch result {
      case .success:
        targets[index].removeFirst(count)
        targets[index].sent += count
        targets[index].failures = 0
        if targets[index].depth > 0 {
          targets[index].move(to: .scheduled)
          return .send
        }
        targets[index].move(to: .idle)
        return .stop
      case .failure(let error):
        targets[index].failed += 1
        targets[index].retried += 1
        targets[index].failures += 1
        targets[index].lastError = error.kind
        targets[index].lastErrorTime = ChatClock.milliseconds() / 1000
        let attempt = targets[index].failures
        targets[index].move(to: .backingOff(attempt: attempt))
        return .wait(backoff(attempt: attempt))
      }
    }
    switch next {
    case .send: send(index)
    case .wait(let delay):
      _ = client.loop.scheduleLocal(after: delay) { [self] in retry(index) }
    case .stop: break
    }
  }

  private func retry(_ index: Int) {
    let go = targets.withLock { targets in
      guard case .backingOff = targets[index].phase else { return false }
      targets[index].move(to: .scheduled)
      return true
    }
    if go { send(index) }
  }

  /// The delay before attempt `attempt + 1`: `retryDelay · 2^(attempt-1)`, capped, ±25 %.
  func backoff(attempt: Int) -> Duration {
    let base = configuration.retryDelay * (1 << min(attempt - 1, 20))
    let capped = min(base, configuration.retryMaxDelay)
    let spread = Double.random(in: 0.75...1.25)
    return capped * spread
  }

  // MARK: Metrics

  /// The webhook counters as Prometheus text, per target (`target` is its position among
  /// the `--webhook` flags, from 0; URLs are not shown, as they may carry credentials).
  public func prometheusText() -> String {
    let rows: [(String, String, String, (Target) -> String)] = [
      ("switchboard_webhook_events_sent_total", "counter", "events the receiver accepted", { "\($0.sent)" }),
      ("switchboard_webhook_requests_failed_total", "counter", "POSTs that failed", { "\($0.failed)" }),
      ("switchboard_webhook_retries_total", "counter", "POSTs retried after a failure", { "\($0.retried)" }),
      ("switchboard_webhook_events_dropped_total", "counter", "events dropped: queue full", { "\($0.dropped)" }),
      ("switchboard_webhook_queue_depth", "gauge", "events waiting or in flight", { "\($0.depth)" }),
      (
        "switchboard_webhook_last_error_timestamp_seconds", "gauge", "when the last POST failed (0: never)",
        { "\($0.lastErrorTime)" }
      ),
    ]
    let snapshot = targets.withLock { $0 }
    var out = ""
    for (name, type, help, value) in rows {
      out += "# HELP \(name) Webhooks: \(help).\n# TYPE \(name) \(type)\n"
      for (index, target) in snapshot.enumerated() { out += "\(name){target=\"\(index)\"} \(value(target))\n" }
    }
    let last = "switchboard_webhook_last_error"
    out += "# HELP \(last) Webhooks: the last failure's kind (1 while the last POST failed).\n# TYPE \(last) gauge\n"
    for (index, target) in snapshot.enumerated() {
      let failing = target.failures > 0 ? 1 : 0
      out += "\(last){target=\"\(index)\",kind=\"\(target.lastError ?? "none")\"} \(failing)\n"
    }
    return out
  }
}
