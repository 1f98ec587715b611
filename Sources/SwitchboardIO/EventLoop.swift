import CSwitchboardShims
import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One thread running a selector, timers and a task queue.
///
/// Everything about sockets happens on the loop's thread: handlers registered with
/// ``register(_:fd:interest:)`` are called there, and other threads reach them with
/// ``execute(_:)``. Each iteration: readiness events, expired timers, queued tasks, then
/// one flush of every connection with pending output.
public final class EventLoop: @unchecked Sendable {
  // Safety: `table`, `timers`, `flushList` and `running` are touched only on the loop
  // thread (enforced by `assertInEventLoop`); `tasks` is behind a mutex; `thread` is set
  // before the loop starts and read-only afterwards.

  /// The loop's index in its group.
  public let index: Int
  /// The backend in use.
  public let backend: SelectorBackend
  let selector: IOSelector
  /// Who handles each registered descriptor and what it is watched for, indexed by the
  /// descriptor's number (see ``DescriptorTable``). Loop thread only, never overlapping
  /// itself, so its exclusivity checks are off (it is touched on every event).
  @exclusivity(unchecked) private var table = DescriptorTable()
  private var timers = TimerHeap()
  /// Timers scheduled from other threads, not yet in ``timers``. The loop takes them in
  /// before it fires any timer (and before it computes its next wait), so that one
  /// scheduled while the loop was stalled is ordered by its deadline with those already
  /// in the heap — a task carrying it could run only after an expired later timer fired.
  private let incomingTimers = Mutex<[IncomingTimer]>([])
  /// How many ``incomingTimers`` wait: one atomic load per iteration when none do.
  private let incomingTimerCount = Atomic<Int>(0)
  /// When ``runTimers()`` last dropped the cancelled timers (once a second at most).
  private var timersPurged = Deadline.now()
  /// Appended once per connection with new output per iteration (see TCPConnection on
  /// why the exclusivity checks are off).
  @exclusivity(unchecked) private var flushList: [Flushable] = []
  private let tasks = Mutex<[@Sendable () -> Void]>([])
  /// Tasks queued by ``execute(_:)`` (``executedTaskCount``).
  private let executedCount = Atomic<UInt64>(0)
  /// Tasks of the running batch not started yet (loop thread only).
  private var batchRemaining = 0
  /// The storage of the batch run last, emptied: the next batch swaps it in for the queue,
  /// so that neither side allocates once both have grown (loop thread only).
  @exclusivity(unchecked) private var spareBatch: [@Sendable () -> Void] = []
  private let threadID = Atomic<UInt>(0)
  private let stopRequested = Atomic<Bool>(false)
  private let finished = DispatchSemaphore(value: 0)
  /// A read buffer shared by every connection on this loop (reads are synchronous).
  let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
  /// Bytes read on this loop since it last gave freed heap memory back, plus the large
  /// output chunks (``PendingWrites/largeChunk``) sent since: both are storage freed once
  /// handled. Output counts too because an idle moment can fall inside a burst (a peer
  /// that pauses mid-frame): the trim there resets this, and the burst's buffers, freed
  /// after it, must make the next trim due (a read-only count stayed below the bar).
  @exclusivity(unchecked) var bytesSinceTrim = 0
  /// After this many bytes, a loop that then stays idle for ``trimIdleNanos`` gives
  /// freed memory back to the kernel (`malloc_trim`): a burst of large frames otherwise
  /// leaves the heap at its peak (glibc's free keeps heap pages, and raises its mmap
  /// threshold after a large free). Waiting for the idle moment trims after the burst's
  /// buffers are freed, not in the middle of it.
  static let trimAfterBytes = 8 << 20
  /// How long a loop with a trim due waits for the next event before trimming.
  static let trimIdleNanos: UInt64 = 100_000_000
  /// The spare blocks its connections copy small frames into (see ``PendingWrites``).
  let writeRuns = WriteRunPool()
  /// Scratch iovecs for the flush's `sendmsg`.
  let iovecs = UnsafeMutablePointer<iovec>.allocate(capacity: 64)
  let iovecCapacity = 64
  /// The io_uring that batches the iteration's sends (``SelectorBackend/ioUring`` only;
  /// `nil` again if the ring itself ever fails, and the loop then sends directly).
  @exclusivity(unchecked) private(set) var sendRing: OpaquePointer?
  /// Connections with a send queued in `sendRing`, indexed by the send's tag.
  @exclusivity(unchecked) private var ringSenders: [TCPConnection] = []
  /// The storage of the batch settled last, emptied and handed back to `ringSenders` by the
  /// next submission, so that an iteration's batch does not allocate a new array.
  @exclusivity(unchecked) private var spareSenders: [TCPConnection] = []
  private let ringTags: UnsafeMutablePointer<UInt64>
  private let ringResults: UnsafeMutablePointer<Int32>
  /// Sends per `io_uring_enter` by default: a room of up to this many members leaves in
  /// one call.
  static let defaultRingEntries = 1024

  /// Starts a loop on a new thread, named `sb-loop-INDEX` (as `top -H` and debuggers show it).
  /// - Throws: ``IOError`` when the selector or the thread cannot be created.
  public convenience init(index: Int = 0, backend: SelectorBackend = .platformDefault) throws(IOError) {
    try self.init(index: index, backend: backend, sendRingEntries: Self.defaultRingEntries)
  }

  /// `sendRingEntries` (a power of two): sends per `io_uring_enter` with ``SelectorBackend/ioUring``
  /// (tests use small rings to exercise full batches).
  init(index: Int, backend: SelectorBackend, sendRingEntries: Int) throws(IOError) {
    self.index = index
    self.backend = backend
    self.selector = try makeSelector(backend)
    if backend == .ioUring {
      // Every send takes at most `iovecCapacity` iovecs from the pool, so a pool of at least
      // that many always has room for one send after a submit.
      let pool = max(sendRingEntries * 4, 2 * iovecCapacity)
      guard let ring = sb_send_ring_create(UInt32(sendRingEntries), UInt32(pool)) else {
        let error = IOError(call: "io_uring_setup", errno: errno)
        selector.close()
        throw error
      }
      sendRing = ring
    } else {
      sendRing = nil
    }
    ringTags = .allocate(capacity: sendRingEntries)
    ringResults = .allocate(capacity: sendRingEntries)
    // A write to a socket the peer closed must fail with EPIPE, not kill the process.
    Posix.ignoreBrokenPipes()
    do throws(IOError) {
      try SystemThread.start(name: "sb-loop-\(index)") { [self] in self.run() }
    } catch {
      selector.close()
      throw error
    }
  }

  deinit {
    readBuffer.deallocate()
    iovecs.deallocate()
    ringTags.deallocate()
    ringResults.deallocate()
    if let sendRing { sb_send_ring_destroy(sendRing) }
  }

  /// `true` when called on this loop's thread.
  public var inEventLoop: Bool { threadID.load(ordering: .acquiring) == SystemThread.currentID }

  /// Traps unless called on the loop's thread.
  public func assertInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
    precondition(inEventLoop, "must be called on event loop \(index)", file: file, line: line)
  }

  /// Runs `task` on the loop's thread, after the current iteration's events. Tasks run in
  /// the order they were submitted.
  public func execute(_ task: @escaping @Sendable () -> Void) {
    // Counted before the task is visible: a thread that learns of the task (through a lock
    // the caller holds, say) also sees the count that includes it.
    executedCount.add(1, ordering: .relaxed)
    enqueue(task)
  }

  /// Runs `task` like ``execute(_:)``, in submission order, without counting it in
  /// ``executedTaskCount``: for tasks that later work may be merged into (the hub's room
  /// deliveries, see `ShardExecutor.taskStamp`).
  public func executeUncounted(_ task: @escaping @Sendable () -> Void) {
    enqueue(task)
  }

  /// When the loop's current iteration woke up (its readiness events came back from the
  /// kernel, or its wait timed out): one clock read per iteration, for handlers and tasks
  /// that note when they last heard from a peer (an idle timer's base, at most one
  /// iteration old). Loop thread only (its exclusivity checks are off for that reason, as
  /// `table`'s are).
  public var eventTime: Deadline { currentEventTime }
  // (The storage behind a getter: other modules reading a public stored property checked
  // it at run time, unchecked or not — a `swift_beginAccess` per read, ~76 instructions.)
  @exclusivity(unchecked) private var currentEventTime = Deadline.now()

  /// How many tasks ``execute(_:)`` has queued so far (not ``executeUncounted(_:)``), from
  /// any thread.
  public var executedTaskCount: UInt64 { executedCount.load(ordering: .relaxed) }

  private func enqueue(_ task: @escaping @Sendable () -> Void) {
    let wasEmpty = tasks.withLock { tasks in
      let empty = tasks.isEmpty
      tasks.append(task)
      return empty
    }
    if wasEmpty && !inEventLoop { selector.wakeup() }
  }

  /// Runs `task` on the loop's thread after `delay`.
  @discardableResult
  public func schedule(after delay: Duration, _ task: @escaping @Sendable () -> Void) -> Scheduled {
    let handle = Scheduled()
    let deadline = Deadline.now().adding(delay)
    if inEventLoop {
      timers.push(TimerEntry(deadline: deadline, interval: nil, handle: handle, task: task))
    } else {
      scheduleFromOutside(IncomingTimer(deadline: deadline, interval: nil, handle: handle, task: task))
    }
    return handle
  }

  /// Runs `task` every `interval` until the returned handle is cancelled.
  @discardableResult
  public func scheduleRepeating(every interval: Duration, _ task: @escaping @Sendable () -> Void) -> Scheduled {
    let handle = Scheduled()
    let deadline = Deadline.now().adding(interval)
    if inEventLoop {
      timers.push(TimerEntry(deadline: deadline, interval: interval, handle: handle, task: task))
    } else {
      scheduleFromOutside(IncomingTimer(deadline: deadline, interval: interval, handle: handle, task: task))
    }
    return handle
  }

  /// Hands a timer made on another thread to the loop (``incomingTimers``), and wakes it.
  private func scheduleFromOutside(_ timer: IncomingTimer) {
    incomingTimers.withLock { $0.append(timer) }
    incomingTimerCount.add(1, ordering: .releasing)
    enqueue {}  // the wake-up: the loop takes the timer in before it next fires timers
  }

  /// Moves ``incomingTimers`` into the heap. Loop thread only.
  private func takeIncomingTimers() {
    guard incomingTimerCount.load(ordering: .acquiring) > 0 else { return }
    let incoming = incomingTimers.withLock { waiting in
      defer { waiting.removeAll() }
      return waiting
    }
    incomingTimerCount.subtract(incoming.count, ordering: .relaxed)
    for timer in incoming {
      timers.push(TimerEntry(deadline: timer.deadline, interval: timer.interval, handle: timer.handle, task: timer.task))
    }
  }

  /// Like ``schedule(after:_:)`` for loop-bound callers whose closures are not `Sendable`.
  /// Must be called on the loop's thread.
  @discardableResult
  public func scheduleLocal(after delay: Duration, _ task: @escaping () -> Void) -> Scheduled {
    assertInEventLoop()
    let handle = Scheduled()
    timers.push(TimerEntry(deadline: Deadline.now().adding(delay), interval: nil, handle: handle, task: task))
    return handle
  }

  /// Like ``scheduleRepeating(every:_:)`` for loop-bound callers. Loop thread only.
  @discardableResult
  public func scheduleRepeatingLocal(every interval: Duration, _ task: @escaping () -> Void) -> Scheduled {
    assertInEventLoop()
    let handle = Scheduled()
    timers.push(TimerEntry(deadline: Deadline.now().adding(interval), interval: interval, handle: handle, task: task))
    return handle
  }

  // MARK: Registration (loop thread only)

  /// Watches `fd` for `interest`, calling `handler` on readiness. Loop thread only.
  public func register(_ handler: Selectable, fd: Int32, interest: Interest) throws(IOError) {
    assertInEventLoop()
    try selector.register(fd: fd, interest: interest)
    table.insert(handler, fd: fd, interest: interest)
  }

  /// Changes what `fd` is watched for. Loop thread only.
  public func setInterest(fd: Int32, _ interest: Interest) {
    assertInEventLoop()
    guard let current = table.interest(fd), current != interest else { return }
    table.setInterest(interest, fd: fd)
    try? selector.reregister(fd: fd, interest: interest)
  }

  /// Stops watching `fd` and closes it. Loop thread only.
  public func deregisterAndClose(fd: Int32) {
    assertInEventLoop()
    table.remove(fd: fd)
    selector.deregisterAndClose(fd: fd)
  }

  /// Asks the loop to call `flush()` on `target` at the end of this iteration.
  public func needsFlush(_ target: Flushable) {
    flushList.append(target)
  }

  /// The number of registered descriptors (for metrics and tests).
  public var registeredCount: Int {
    assertInEventLoop()
    return table.count
  }

  /// The number of timers waiting and not cancelled (for metrics and tests; a walk over
  /// them). Cancelled timers leave the heap within about a second. Loop thread only.
  public var timerCount: Int {
    assertInEventLoop()
    return timers.liveCount
  }

  // MARK: Running

  /// Stops the loop after its current iteration and waits for the thread to end. Handlers
  /// still registered are closed through their descriptors. Call from another thread.
  public func shutdownGracefully() {
    precondition(!inEventLoop, "shutdownGracefully would deadlock on the loop's own thread")
    guard !stopRequested.exchange(true, ordering: .acquiringAndReleasing) else { return }
    selector.wakeup()
    finished.wait()
  }

  private func run() {
    threadID.store(SystemThread.currentID, ordering: .releasing)
    while !stopRequested.load(ordering: .acquiring) {
      let hasTasks = tasks.withLock { !$0.isEmpty }
      var timeout: UInt64? = nil
      if hasTasks || !flushList.isEmpty {
        timeout = 0
      } else if let next = timers.nextDeadline {
        let now = Deadline.now()
        timeout = next > now ? next.nanoseconds - now.nanoseconds : 0
      }
      let trimDue = timeout != 0 && bytesSinceTrim >= Self.trimAfterBytes
      // Spare write runs go at the same idle moment: kept while output flows, none kept by
      // an idle loop, so that idle connections cost only what they hold.
      let runsDue = timeout != 0 && writeRuns.spareCount > 0
      if trimDue || runsDue { timeout = min(timeout ?? .max, Self.trimIdleNanos) }
      var handled = false
      do {
        try selector.wait(timeoutNanos: timeout) { fd, events in
          if !handled {
            handled = true
            currentEventTime = Deadline.now()
          }
          table.handler(fd)?.handle(events)
        }
      } catch {
        // epoll_wait fails only on programming errors; do not spin.
        usleep(1000)
      }
      // No event: the timers and tasks that follow still see this iteration's time.
      if !handled { currentEventTime = Deadline.now() }
      if runsDue && !handled { writeRuns.releaseSpares() }
      if trimDue && !handled {
        // Idle after a large burst: its buffers are freed by now.
        bytesSinceTrim = 0
        _ = sb_release_free_memory()
      }
      runTimers()
      runTasks()
      flushAll()
    }
    runTasks()
    flushAll()
    for fd in table.descriptors { deregisterAndClose(fd: fd) }
    selector.close()
    finished.signal()
  }

  private func runTimers() {
    takeIncomingTimers()
    guard timers.nextDeadline != nil else { return }
    let now = Deadline.now()
    if now.nanoseconds &- timersPurged.nanoseconds > 1_000_000_000 {
      timersPurged = now
      timers.removeCancelled()
    }
    while let entry = timers.popExpired(now: now) {
      if entry.handle.isCancelled { continue }
      entry.task()
      if let interval = entry.interval, !entry.handle.isCancelled {
        var again = entry
        again.deadline = now.adding(interval)
        timers.push(again)
      }
    }
  }

  private func runTasks() {
    // Bounded: tasks queued by these tasks run in the next iteration, after I/O. The
    // queue's array is swapped for the spare one rather than copied and cleared, which
    // would allocate a new array (the copy shares the storage) on every batch.
    var batch = spareBatch
    spareBatch = []
    tasks.withLock { swap(&$0, &batch) }
    batchRemaining = batch.count
    for task in batch {
      batchRemaining -= 1
      task()
    }
    // `removeLast` keeps the capacity for a few instructions a task, where
    // `removeAll(keepingCapacity:)` goes through the generic `replaceSubrange`.
    while !batch.isEmpty { batch.removeLast() }
    spareBatch = batch
  }

  /// Whether more tasks wait behind the one running now: later ones of this iteration's
  /// batch, or any queued since. Loop thread only.
  public var hasPendingTasks: Bool {
    assertInEventLoop()
    return batchRemaining > 0 || tasks.withLock { !$0.isEmpty }
  }

  private func flushAll() {
    var i = 0
    repeat {
      while i < flushList.count {  // a flush may append (e.g. a close that flushes)
        flushList[i].flush()
        i += 1
      }
      // With a ring, the flushes above only queued their sends: one call sends them all,
      // and what their completions do (a close, a write elsewhere) may flush again.
      if !ringSenders.isEmpty { submitSends() }
    } while i < flushList.count
    flushList.removeAll(keepingCapacity: true)
  }

  // MARK: Batched sends (io_uring)

  /// Queues `connection`'s pending output in the ring, submitting the batch first when it
  /// is full. Called by the connection's `flush()`.
  func queueSend(_ connection: TCPConnection) {
    for attempt in 0..<2 {
      guard let ring = sendRing else {  // the ring failed: direct sends from now on
        connection.flushSynchronously()
        return
      }
      switch connection.queueSend(into: ring, tag: UInt64(ringSenders.count)) {
      case .queued:
        ringSenders.append(connection)
        return
      case .nothing:
        return
      case .full where attempt == 0:
        // Completions may call delegates; the connection re-checks its state after.
        submitSends()
      case .full:
        connection.flushSynchronously()  // cannot happen with an empty ring; never strand bytes
        return
      }
    }
  }

  /// Sends everything queued in the ring and waits for it, then settles the connections:
  /// first every connection's byte count (no callbacks; a connection whose queue is simply
  /// empty now is done there), then what the others must do next (wait for writability,
  /// flush the rest, close, tell their delegates) — so a delegate that writes or closes
  /// never sees a connection whose send is still unaccounted.
  private func submitSends() {
    guard let ring = sendRing else { return }
    // The batch moves out of `ringSenders`, which takes the spare's (empty) storage; a
    // submission nested in this one's completions finds no spare and allocates.
    var senders = spareSenders
    spareSenders = []
    swap(&senders, &ringSenders)
    defer {
      // `removeLast` keeps the capacity for a few instructions a connection, where
      // `removeAll(keepingCapacity:)` goes through the generic `replaceSubrange`.
      while !senders.isEmpty { senders.removeLast() }
      spareSenders = senders
    }
    let completed = Int(sb_send_ring_submit(ring, ringTags, ringResults))
    if completed < 0 {
      // The ring itself failed (not a socket's send): how much of each send reached the
      // kernel is unknown, so these connections cannot go on without risking duplicated
      // bytes; they fail with the error. The loop sends directly from now on, and the ring
      // is left as it is (the kernel may still hold pointers into it).
      sendRing = nil
      for connection in senders { _ = connection.sendCompleted(Int32(completed)) }
      for connection in senders { connection.sendSettled() }
      return
    }
    var unsettled: [TCPConnection] = []
    for i in 0..<completed {
      let connection = senders[Int(ringTags[i])]
      if connection.sendCompleted(ringResults[i]) { unsettled.append(connection) }
    }
    for connection in unsettled { connection.sendSettled() }
  }
}
