import Dispatch
import SwitchboardChat
import SwitchboardIO
import SwitchboardWire
import Synchronization

/// The working part of `SQLiteHistoryStore`: the write queue, the writer thread's loop and
/// the reads. Separate from the public class so that the writer thread, which retains
/// this, does not keep the store alive: the store's `deinit` can still close it.
///
/// Two locks, never held together: `queue` (the pending writes and who waits, touched by
/// every `append`, held for a few instructions) and `database` (the SQLite connection,
/// held by the writer for a whole commit and by readers for a query). The connection is
/// a non-`Sendable` class reached only inside `database.withLock`, so one thread at a time
/// uses it (SQLite is opened `NOMUTEX`).
final class HistoryEngine: Sendable {
  let path: String
  private let configuration: SQLiteStoreConfiguration
  private let queue: Mutex<WriteQueue>
  private let database: Mutex<SQLiteDatabase?>
  /// Wakes the writer; see `WriteQueue.Phase` for when callers signal it.
  private let wakeup = DispatchSemaphore(value: 0)
  private let writerID = Atomic<UInt>(0)
  /// Commit and append latencies, the queue's length.
  let statistics: HistoryStoreStatistics

  init(path: String, configuration: SQLiteStoreConfiguration) throws(StoreError) {
    self.path = path
    self.configuration = configuration
    let synchronous = configuration.durability == .fsync ? "FULL" : "NORMAL"
    let db = try SQLiteDatabase(
      path: path, synchronous: synchronous, maxBytes: configuration.maxDatabaseBytes)
    // Pruning at open applies a retention lowered since the last run; a failure (say, a
    // full disk) is not fatal: reads filter by retention anyway.
    do throws(StoreError) {
      try db.prune(
        rooms: nil, keep: max(0, configuration.retentionCount), olderThan: Self.cutoff(configuration))
    } catch {
      configuration.logger.warning(
        "history pruning at open failed", metadata: ["path": path, "error": "\(error)"])
    }
    self.database = Mutex(db)
    self.queue = Mutex(
      WriteQueue(
        maxBatch: configuration.maxBatch, maxPending: configuration.maxPending,
        lingers: configuration.batchInterval > .zero))
    self.statistics = HistoryStoreStatistics(maxBytes: configuration.maxDatabaseBytes)
    do throws(IOError) {
      try SystemThread.start(name: "sb-store-writer") { [self] in runWriter() }
    } catch {
      database.withLock { db in
        db?.close()
        db = nil
      }
      throw StoreError.cannotOpen("cannot start the history writer thread: \(FileSystem.describe(error.errno))")
    }
    configuration.logger.debug(
      "history opened", metadata: ["path": path, "durability": "\(configuration.durability)"])
  }

  /// The oldest `time` kept by `retentionAge`, or `nil` when ages are not limited.
  private static func cutoff(_ configuration: SQLiteStoreConfiguration) -> Int64? {
    guard let age = configuration.retentionAge else { return nil }
    let (now, overflow) = configuration.clock().subtractingReportingOverflow(age.wholeMilliseconds)
    return overflow ? .min : now
  }

  private var onWriterThread: Bool { writerID.load(ordering: .relaxed) == SystemThread.currentID }

  // MARK: Callers

  func append(_ message: ChatMessage, completion: (@Sendable (Result<Void, StoreError>) -> Void)?) {
    let immediate = configuration.durability == .none
    let write = PendingWrite(
      message: message, completion: immediate ? nil : completion, queuedAt: Deadline.now().nanoseconds)
    switch queue.withLock({ $0.append(write) }) {
    case .queued(let signal):
      statistics.queued.add(1, ordering: .relaxed)
      if signal { wakeup.signal() }
      if immediate { completion?(.success(())) }
    case .rejected(let error):
      completion?(.failure(error))
    }
  }

  func loadRoom(_ room: String, limit: Int) throws(StoreError) -> RoomSnapshot {
    flush()
    let keep = configuration.retentionCount
    let floorTime = Self.cutoff(configuration) ?? .min
    return try database.withLock { (db: inout SQLiteDatabase?) throws(StoreError) -> RoomSnapshot in
      guard let db else { throw Self.closedError }
      let (epoch, lastID) = try db.room(room)
      let floorID = lastID > UInt64(max(0, keep)) ? lastID - UInt64(keep) : 0
      let recent = try db.newest(room: room, floorID: floorID, floorTime: floorTime, limit: min(limit, keep))
      return RoomSnapshot(lastID: lastID, epoch: epoch, recent: recent)
    }
  }

  func messages(room: String, after id: UInt64, limit: Int) throws(StoreError) -> [ChatMessage] {
    flush()
    let keep = configuration.retentionCount
    let floorTime = Self.cutoff(configuration) ?? .min
    return try database.withLock { (db: inout SQLiteDatabase?) throws(StoreError) -> [ChatMessage] in
      guard let db else { throw Self.closedError }
      let lastID = try db.findRoom(room)?.lastID ?? 0
      let floorID = max(id, lastID > UInt64(max(0, keep)) ? lastID - UInt64(keep) : 0)
      return try db.after(room: room, floorID: floorID, floorTime: floorTime, limit: limit)
    }
  }

  func roomNames(limit: Int) throws(StoreError) -> [String] {
    try database.withLock { (db: inout SQLiteDatabase?) throws(StoreError) -> [String] in
      guard let db else { throw Self.closedError }
      return try db.roomNames(limit: limit)
    }
  }

  func prune() throws(StoreError) {
    flush()
    let keep = max(0, configuration.retentionCount)
    let cutoff = Self.cutoff(configuration)
    try database.withLock { (db: inout SQLiteDatabase?) throws(StoreError) in
      guard let db else { throw Self.closedError }
      try db.prune(rooms: nil, keep: keep, olderThan: cutoff)
    }
  }

  /// Waits until every write queued before the call is committed or failed. From the
  /// writer thread (a completion calling back into the store) it returns at once: the
  /// writer cannot wait for itself.
  func flush() {
    if onWriterThread { return }
    let done = DispatchSemaphore(value: 0)
    let (wait, signal) = queue.withLock { $0.waitForFlush(done) }
    if signal { wakeup.signal() }
    if wait { done.wait() }
  }

  /// Drains the queue, stops the writer and closes the database; idempotent. From the
  /// writer thread it only starts closing (the writer finishes once the completion returns).
  func close() {
    let done = onWriterThread ? nil : DispatchSemaphore(value: 0)
    let (wait, signal) = queue.withLock { $0.close(done) }
    if signal { wakeup.signal() }
    if wait, let done { done.wait() }
  }

  static var closedError: StoreError { .closed }

  // MARK: The writer thread

  private func runWriter() {
    writerID.store(SystemThread.currentID, ordering: .relaxed)
    let pruneEvery = max(1, configuration.pruneEveryBatches)
    var batchesSincePrune = 0
    var touchedRooms: Set<String> = []
    var lastAgePrune = ContinuousClock.now
    while true {
      switch queue.withLock({ $0.next() }) {
      case .sleep:
        wakeup.wait()
      case .linger:
        if wakeup.wait(timeout: .now() + .nanoseconds(Self.nanoseconds(configuration.batchInterval)))
          == .timedOut
        {
          queue.withLock { $0.lingerEnded() }
        }
      case .commit(let batch):
        statistics.queued.subtract(batch.count, ordering: .relaxed)
        let started = Deadline.now().nanoseconds
        let result = commit(batch)
        let done = Deadline.now().nanoseconds
        statistics.recordBatch(commit: done &- started, queued: batch.map(\.queuedAt), done: done)
        if case .failure(let error) = result {
          configuration.logger.debug(
            "history commit failed", metadata: ["path": path, "messages": "\(batch.count)", "error": "\(error)"])
        }
        for write in batch { write.completion?(result) }
        for write in batch { touchedRooms.insert(write.message.room) }
        batchesSincePrune += 1
        // A failed commit may be a full disk: pruning soon may free the space it needs.
        if case .failure = result { batchesSincePrune = pruneEvery }
        if batchesSincePrune >= pruneEvery {
          var cutoff: Int64? = nil
          if configuration.retentionAge != nil
            && lastAgePrune.duration(to: .now) >= configuration.agePruneInterval
          {
            cutoff = Self.cutoff(configuration)
            lastAgePrune = .now
          }
          let rooms = touchedRooms
          let keep = max(0, configuration.retentionCount)
          let pruned = database.withLock { db -> Result<Void, StoreError> in
            Result { () throws(StoreError) in try db?.prune(rooms: rooms, keep: keep, olderThan: cutoff) }
          }
          if case .failure(let error) = pruned {
            configuration.logger.debug("history pruning failed", metadata: ["path": path, "error": "\(error)"])
          }
          touchedRooms.removeAll(keepingCapacity: true)
          batchesSincePrune = 0
        }
        let ready = queue.withLock { $0.finish(batch.count) }
        for waiter in ready { waiter.signal() }
      case .stop:
        database.withLock { db in
          db?.close()
          db = nil
        }
        configuration.logger.debug("history closed", metadata: ["path": path])
        let waiters = queue.withLock { $0.takeStopWaiters() }
        for waiter in waiters { waiter.signal() }
        return
      }
    }
  }

  private func commit(_ batch: [PendingWrite]) -> Result<Void, StoreError> {
    database.withLock { (db: inout SQLiteDatabase?) -> Result<Void, StoreError> in
      guard let db else { return .failure(Self.closedError) }
      do throws(StoreError) {
        try db.write(batch.lazy.map(\.message))
        return .success(())
      } catch {
        if db.lastFailureWasFull { statistics.fullBatches.add(1, ordering: .relaxed) }
        return .failure(error)
      }
    }
  }

  private static func nanoseconds(_ duration: Duration) -> Int {
    let (seconds, attoseconds) = duration.components
    return Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
  }
}
