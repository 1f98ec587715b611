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
  /// What the writer thread is doing, so callers know when it needs a wake-up.
  enum WriterMode {
    /// Committing or about to; it will look at the queue again without a signal.
    case running
    /// Asleep until anything is queued.
    case idle
    /// Gathering a batch until `batchInterval` passes; wants a signal only when the
    /// batch is full, a flush is requested or the store closes.
    case lingering
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
  private(set) var mode: WriterMode = .running
  private(set) var closing = false
  private(set) var stopped = false
  private var flushWaiters: [(target: UInt64, semaphore: DispatchSemaphore)] = []
  private var stopWaiters: [DispatchSemaphore] = []
  /// The writer lingers once per busy spell (after being idle); later batches of the same
  /// spell are committed at once, since their messages already waited for the previous commit.
  private var lingered = false

  init(maxBatch: Int, maxPending: Int, lingers: Bool) {
    self.maxBatch = max(1, maxBatch)
    self.maxPending = max(1, maxPending)
    self.lingers = lingers
  }

  // MARK: Callers

  mutating func append(_ write: PendingWrite) -> AppendAction {
    if closing { return .rejected(.closed) }
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
    if finished >= queued || stopped { return (false, false) }
    flushWaiters.append((queued, semaphore))
    return (true, wake(forFullBatch: true))
  }

  /// Starts closing: later appends are rejected, the writer drains the queue then stops.
  /// `semaphore` (when given) is signalled once the writer stopped.
  mutating func close(_ semaphore: DispatchSemaphore?) -> (wait: Bool, signalWriter: Bool) {
    if stopped { return (false, false) }
    closing = true
    if let semaphore { stopWaiters.append(semaphore) }
    return (semaphore != nil, wake(forFullBatch: true))
  }

  /// Whether a caller's event should wake the writer, switching it to `.running` if so.
  private mutating func wake(forFullBatch urgent: Bool) -> Bool {
    switch mode {
    case .running: return false
    case .idle: break
    case .lingering: if !urgent { return false }
    }
    mode = .running
    return true
  }

  // MARK: The writer

  /// Called by the writer whenever it is free. `.sleep`/`.linger` leave the mode idle or
  /// lingering; the writer then waits on its semaphore and calls `next` again.
  mutating func next() -> WriterStep {
    if pending.isEmpty {
      if closing {
        stopped = true
        return .stop
      }
      mode = .idle
      lingered = false
      return .sleep
    }
    let urgent = closing || !flushWaiters.isEmpty || pending.count >= maxBatch
    if lingers && !lingered && !urgent {
      lingered = true
      mode = .lingering
      return .linger
    }
    mode = .running
    let count = min(maxBatch, pending.count)
    let batch = Array(pending.prefix(count))
    pending.removeFirst(count)
    return .commit(batch)
  }

  /// The linger interval passed without a signal.
  mutating func lingerEnded() {
    mode = .running
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
