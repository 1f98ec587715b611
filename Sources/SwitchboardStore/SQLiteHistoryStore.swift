import SwitchboardChat
import SwitchboardLog
import SwitchboardWire

/// A `HistoryStore` in a SQLite database, `DIRECTORY/history.sqlite3`, in WAL mode.
///
/// `append` only queues the message: one writer thread commits queued messages in
/// batches (up to `maxBatch` per transaction, gathered for up to `batchInterval` after a
/// quiet spell) and then runs their completions, on that thread, with the batch's result.
/// Callers never wait for the disk, except `loadRoom`, `messages` and `prune`, which first
/// wait for the writes queued before them so they read what was appended, and `close`.
///
/// Every room keeps its newest `retentionCount` messages and, with a `retentionAge`,
/// only those that recent; reads never return more, and the writer deletes the rest
/// from time to time.
///
/// ```swift
/// let store = try SQLiteHistoryStore(directory: "/var/lib/switchboard", configuration: .init())
/// let room = try store.loadRoom("lobby", limit: 50)   // ids continue at room.lastID + 1
/// store.append(message) { result in … }                 // after the batch's commit
/// store.close()
/// ```
public final class SQLiteHistoryStore: HistoryStore {
  /// The database file's name inside the store's directory.
  public static let fileName = "history.sqlite3"

  private let engine: HistoryEngine

  /// The database file, `directory/history.sqlite3`.
  public var path: String { engine.path }

  /// The writer's commit and append latencies and its queue's length (for `/metrics`).
  public var statistics: HistoryStoreStatistics { engine.statistics }

  /// Opens the history in `directory`, creating the directory and the database if missing.
  ///
  /// Everything that would stop the store from working is found here rather than later:
  /// the file is opened, switched to WAL, checked with `PRAGMA quick_check` and its
  /// schema version verified.
  /// - Parameters:
  ///   - directory: Where `history.sqlite3` (and SQLite's `-wal`/`-shm` files) live.
  ///   - configuration: Retention, durability and batching.
  /// - Throws: `StoreError` naming the path and the cause, e.g.
  ///   `cannot open history at /x/history.sqlite3: file is not a database`,
  ///   `cannot open history at /x: not a directory`.
  public init(directory: String, configuration: SQLiteStoreConfiguration = SQLiteStoreConfiguration())
    throws(StoreError)
  {
    try FileSystem.prepareDirectory(directory)
    let path = (directory.hasSuffix("/") ? directory : directory + "/") + Self.fileName
    try FileSystem.createPrivateFile(path)
    Self.warnIfShared([directory, path, path + "-wal", path + "-shm"], logger: configuration.logger)
    engine = try HistoryEngine(path: path, configuration: configuration)
  }

  /// A data directory or database made before they were created private (or opened up by
  /// hand) is left as it is, with one warning per path saying how to close it: the operator
  /// may share it on purpose (a backup group), and a server that changed modes on its own
  /// would surprise them (docs/OPERATIONS.md, "Upgrading").
  private static func warnIfShared(_ paths: [String], logger: Log) {
    for path in paths {
      guard let mode = FileSystem.sharedMode(path) else { continue }
      let wanted = path == paths[0] ? "700" : "600"
      logger.warning(
        "history readable by other users",
        metadata: ["path": path, "mode": String(mode, radix: 8), "fix": "chmod \(wanted) \(path)"])
    }
  }

  deinit {
    engine.close()
  }

  /// Loads `room`, creating it with a fresh random epoch when it has never been seen.
  ///
  /// Waits first for writes queued before the call.
  /// - Returns: The room's last id (so ids continue after a restart), its epoch and its
  ///   newest `limit` kept messages, oldest first.
  /// - Throws: `StoreError` when the database cannot be read or the room row written,
  ///   or the store is closed.
  public func loadRoom(_ room: String, limit: Int) throws(StoreError) -> RoomSnapshot {
    try engine.loadRoom(room, limit: limit)
  }

  /// Queues `message` for the writer and returns at once.
  ///
  /// `completion` runs on the writer thread after the message's batch committed (with
  /// `.failure` for the whole batch if the commit failed, e.g. a full disk), or at once
  /// for `.none` durability. It fails at once when the store is closed or the queue holds
  /// `maxPending` messages. A completion must not block: the next batch waits for it.
  /// The room's row (and epoch) is created by the write if `loadRoom` has not.
  public func append(_ message: ChatMessage, completion: (@Sendable (Result<Void, StoreError>) -> Void)?) {
    engine.append(message, completion: completion)
  }

  /// Kept messages of `room` with an id above `id`, oldest first, at most `limit`.
  ///
  /// Waits first for writes queued before the call, so it sees every acknowledged message.
  /// - Throws: `StoreError` when the database cannot be read or the store is closed.
  public func messages(room: String, after id: UInt64, limit: Int) throws(StoreError) -> [ChatMessage] {
    try engine.messages(room: room, after: id, limit: limit)
  }

  /// The rooms the database holds, at most `limit` (for `--max-rooms`).
  public func roomNames(limit: Int) -> [String] {
    (try? engine.roomNames(limit: limit)) ?? []
  }

  /// Deletes, now, every message beyond the retention limits in all rooms (the writer
  /// otherwise does it every `pruneEveryBatches` batches for the rooms it wrote).
  /// - Throws: `StoreError` when the deletion fails or the store is closed.
  public func prune() throws(StoreError) {
    try engine.prune()
  }

  /// Commits everything queued, runs its completions, and closes the database.
  ///
  /// Idempotent; later appends fail with "history store is closed". Called from a
  /// completion (the writer thread) it only starts closing, without waiting.
  public func close() {
    engine.close()
  }
}
