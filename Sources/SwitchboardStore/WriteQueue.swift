import Dispatch
import SwitchboardChat
import SwitchboardWire

/// One message waiting for the writer thread.
struct PendingWrite {
  var message: ChatMessage
  /// `nil` when the caller asked for none or was already answered (`.none` durability).
  var completion: (@Sendable (Result<Void, StoreError>) -> Void)?
  /// When it was queued (monotonic nanoseconds), for the append latency statistic.
  var queuedAt: UInt64 = 0
}

/// The state shared by callers and the writer thread, kept in one `Mutex`: the queue of
/// pending writes, how far the writer has got, and who waits for it. Pure bookkeeping:
/// each event returns what the caller must do after unlocking (signal the writer, wake
/// waiters), so semaphores are never touched under the lock.
struct WriteQueue {
  /// What the writer thread is doing, so callers know when it needs a wake-up, and whether
  /// the store still takes writes. One value: a writer cannot be both asleep and closing,
  /// nor linger twice in one busy spell.
  enum Phase: Equatable {
    /// Committing or about to; it will look at the queue again without a signal.
    /// `lingered`: this busy spell (since the writer was last idle) already lingered once;
    /// later batches of the same spell are committed at once, since their messages already
    /// waited for the previous commit.
    case running(lingered: Bool)
    /// Asleep until anything is queued.
    case idle
    /// Gathering a batch until `batchInterval` passes; wants a signal only when the
    /// batch is full, a flush is requested or the store closes.
    case lingering
    /// Closing: appends are refused; the writer runs until the queue is drained.
    case closing
    /// The writer drained the queue and stopped.
    case stopped

    /// Whether appends are refused.
    var isClosing: Bool { self == .closing || self == .stopped }
  }

  /// The answer to `append`.
  enum AppendAction {
    case queued(signalWriter: Bool)
    /// The store is closed or the queue is full; fail the completion with this error.
    case rejected(StoreError)
  }

  /// What the writer does next.
  enum WriterStep {
    /// Commit this batch.
    case commit([PendingWrite])
    /// Nothing queued: sleep until signalled.
    case sleep
    /// Some queued but the batch is not full: wait for more until the interval ends.
    case linger
    /// Closing and drained: close the database and stop.
    case stop
  }

  let maxBatch: Int
  let maxPending: Int
  let lingers: Bool

  private(set) var pending: [PendingWrite] = []
  /// Writes ever queued and ever finished (committed or failed); a flush of everything
  /// queued before time T waits until `finished` reaches `queued` as read at T.
  private(set) var queued: UInt64 = 0
  private(set) var finished: UInt64 = 0
  private(set) var phase = Phase.running(lingered: false)
  private var flushWaiters: [(target: UInt64, semaphore: DispatchSemaphore)] = []
  private var stopWaiters: [DispatchSemaphore] = []

  init(maxBatch: Int, maxPending: Int, lingers: Bool) {
    self.maxBatch = max(1, maxBatch)
    self.maxPending = max(1, maxPending)
    self.lingers = lingers
  }

  // MARK: Callers

  mutating func append(_ write: PendingWrite) -> AppendAction {
    if phase.isClosing { return .rejected(.closed) }
    if pending.count >= maxPending {
      return .rejected(.queueFull("history write queue is full (\(maxPending) pending writes)"))
    }
    pending.append(write)
    queued += 1
    return .queued(signalWriter: wake(forFullBatch: pending.count >= maxBatch))
  }

  /// Registers `semaphore` to be signalled once everything queued so far is finished.
  /// Returns `false` (nothing to wait for) when it already is, or when the writer stopped.
  mutating func waitForFlush(_ semaphore: DispatchSemaphore) -> (wait: Bool, signalWriter: Bool) {
    if finished >= queued || phase == .stopped { return (false, false) }
    flushWaiters.append((queued, semaphore))
    return (true, wake(forFullBatch: true))
  }

  /// Starts closing: later appends are rejected, the writer drains the queue then stops.
  /// `semaphore` (when given) is signalled once the writer stopped.
  mutating func close(_ semaphore: DispatchSemaphore?) -> (wait: Bool, signalWriter: Bool) {
    if phase == .stopped { return (false, false) }
    if let semaphore { stopWaiters.append(semaphore) }
    let signal = wake(forFullBatch: true)
    phase = .closing
    return (semaphore != nil, signal)
  }

  /// Whether a caller's event should wake the writer, switching it to `.running` if so.
  private mutating func wake(forFullBatch urgent: Bool) -> Bool {
    switch phase {
    case .running, .closing, .stopped: return false
    case .idle: phase = .running(lingered: false)
    case .lingering:
      guard urgent else { return false }
      phase = .running(lingered: true)
    }
    return true
  }

  // MARK: The writer

  /// Called by the writer whenever it is free. `.sleep`/`.linger` leave the mode idle or
  /// lingering; the writer then waits on its semaphore and calls `next` again.
  mutating func next() -> WriterStep {
    if pending.isEmpty {
      if phase.isClosing {
        phase = .stopped
        return .stop
      }
      phase = .idle
      return .sleep
    }
    let lingered: Bool
    switch phase {
    case .closing, .stopped:
      // Draining: commit what is left at once.
      lingered = true
    case .running(let spell): lingered = spell
    case .lingering: lingered = true
    case .idle: lingered = false
    }
    let urgent = !flushWaiters.isEmpty || pending.count >= maxBatch
    if lingers && !lingered && !urgent {
      phase = .lingering
      return .linger
    }
    if !phase.isClosing { phase = .running(lingered: lingered) }
    let count = min(maxBatch, pending.count)
    let batch = Array(pending.prefix(count))
    pending.removeFirst(count)
    return .commit(batch)
  }

  /// The linger interval passed without a signal.
  mutating func lingerEnded() {
    if phase == .lingering { phase = .running(lingered: true) }
  }

  /// A batch of `count` writes was committed (or failed). Returns the flush waiters to wake.
  mutating func finish(_ count: Int) -> [DispatchSemaphore] {
    finished += UInt64(count)
    var ready: [DispatchSemaphore] = []
    flushWaiters.removeAll { waiter in
      guard waiter.target <= finished else { return false }
      ready.append(waiter.semaphore)
      return true
    }
    return ready
  }

  /// The writer stopped. Returns everyone to wake (flush and close waiters).
  mutating func takeStopWaiters() -> [DispatchSemaphore] {
    let all = flushWaiters.map(\.semaphore) + stopWaiters
    flushWaiters.removeAll()
    stopWaiters.removeAll()
    return all
  }
}
