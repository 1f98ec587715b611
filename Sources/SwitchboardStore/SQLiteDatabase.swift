import CSQLite
import SwitchboardChat
import SwitchboardWire

/// The history database: one SQLite connection, its schema and its prepared statements.
///
/// Not thread-safe: the store keeps it inside a `Mutex` and every use holds that lock.
final class SQLiteDatabase {
  /// The schema this build writes; a file with a higher version is refused.
  static let schemaVersion: Int64 = 1

  let handle: OpaquePointer
  let path: String
  private var statements: [SQLiteStatement] = []

  private var begin: SQLiteStatement!
  private var commit: SQLiteStatement!
  private var rollback: SQLiteStatement!
  private var insertMessage: SQLiteStatement!
  private var upsertRoom: SQLiteStatement!
  private var insertRoom: SQLiteStatement!
  private var selectRoom: SQLiteStatement!
  private var selectNewest: SQLiteStatement!
  private var selectAfter: SQLiteStatement!
  private var pruneRoomByCount: SQLiteStatement!
  private var pruneAllByCount: SQLiteStatement!
  private var pruneByTime: SQLiteStatement!

  /// Opens (creating if needed) the database at `path`, switches it to WAL, checks its
  /// integrity and its schema.
  /// - Throws: `cannot open history at PATH: CAUSE` for anything that would stop the
  ///   store from working later (not a database, unreadable, newer schema, read-only…).
  init(path: String, synchronous: String, maxBytes: Int?) throws(StoreError) {
    var db: OpaquePointer?
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
    let rc = sqlite3_open_v2(path, &db, flags, nil)
    guard rc == SQLITE_OK, let db else {
      let cause = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
      if let db { sqlite3_close_v2(db) }
      throw StoreError.cannotOpen("cannot open history at \(path): \(cause)")
    }
    self.handle = db
    self.path = path
    do {
      try setUp(synchronous: synchronous, maxBytes: maxBytes)
    } catch {
      close()
      throw error
    }
  }

  private func setUp(synchronous: String, maxBytes: Int?) throws(StoreError) {
    let opening = Action.open
    sqlite3_extended_result_codes(handle, 1)
    sqlite3_busy_timeout(handle, 5000)
    // The first statement reads the header: a file of random bytes fails here.
    let mode = try scalarText("PRAGMA journal_mode=WAL", opening)
    guard mode.lowercased() == "wal" else {
      throw opening.error("\(path): cannot enable WAL journaling (journal_mode is \(mode))")
    }
    try exec("PRAGMA synchronous=\(synchronous)", opening)
    let check = try scalarText("PRAGMA quick_check", opening)
    guard check == "ok" else {
      throw opening.error("\(path): integrity check failed: \(check)")
    }
    try migrate()
    if let maxBytes {
      let pageSize = max(512, Int(try scalarText("PRAGMA page_size", opening)) ?? 4096)
      _ = try scalarText("PRAGMA max_page_count=\(max(1, maxBytes / pageSize))", opening)
    }
    try prepareStatements()
  }

  private func migrate() throws(StoreError) {
    let opening = Action.open
    try exec("BEGIN IMMEDIATE", opening)
    do throws(StoreError) {
      let hasVersionTable =
        try scalarText("SELECT count(*) FROM sqlite_master WHERE name='schema_version'", opening) != "0"
      if hasVersionTable {
        let version = Int64(try scalarText("SELECT max(version) FROM schema_version", opening)) ?? 0
        guard version <= Self.schemaVersion else {
          throw opening.error(
            "\(path): history schema version \(version) is newer than this build supports "
              + "(\(Self.schemaVersion))")
        }
        guard version == Self.schemaVersion else {
          throw opening.error("\(path): unknown history schema version \(version)")
        }
      } else {
        // Refuse to add tables to somebody else's database.
        guard try scalarText("SELECT count(*) FROM sqlite_master", opening) == "0" else {
          throw opening.error("\(path): the database exists but is not a Switchboard history")
        }
        try exec(
          """
          CREATE TABLE schema_version(version INTEGER NOT NULL);
          CREATE TABLE rooms(
            name TEXT PRIMARY KEY NOT NULL,
            epoch TEXT NOT NULL,
            last_id INTEGER NOT NULL
          );
          CREATE TABLE messages(
            room TEXT NOT NULL,
            id INTEGER NOT NULL,
            time INTEGER NOT NULL,
            author TEXT NOT NULL,
            color TEXT NOT NULL,
            text TEXT NOT NULL,
            is_action INTEGER NOT NULL,
            PRIMARY KEY(room, id)
          ) WITHOUT ROWID;
          INSERT INTO schema_version(version) VALUES(\(Self.schemaVersion));
          """, opening)
      }
      try exec("COMMIT", opening)
    } catch {
      _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
      throw error
    }
  }

  private func prepareStatements() throws(StoreError) {
    func prepare(_ sql: String) throws(StoreError) -> SQLiteStatement {
      let statement = try SQLiteStatement(database: self, sql: sql)
      statements.append(statement)
      return statement
    }
    begin = try prepare("BEGIN IMMEDIATE")
    commit = try prepare("COMMIT")
    rollback = try prepare("ROLLBACK")
    insertMessage = try prepare(
      "INSERT OR REPLACE INTO messages(room, id, time, author, color, text, is_action) VALUES(?1,?2,?3,?4,?5,?6,?7)"
    )
    upsertRoom = try prepare(
      """
      INSERT INTO rooms(name, epoch, last_id) VALUES(?1, ?2, ?3)
      ON CONFLICT(name) DO UPDATE SET last_id = max(last_id, excluded.last_id)
      """)
    insertRoom = try prepare("INSERT OR IGNORE INTO rooms(name, epoch, last_id) VALUES(?1, ?2, 0)")
    selectRoom = try prepare("SELECT epoch, last_id FROM rooms WHERE name = ?1")
    // ?2: lowest id kept by count, ?3: oldest time kept by age, ?4: limit.
    selectNewest = try prepare(
      """
      SELECT id, time, author, color, text, is_action FROM messages
      WHERE room = ?1 AND id > ?2 AND time >= ?3 ORDER BY id DESC LIMIT ?4
      """)
    selectAfter = try prepare(
      """
      SELECT id, time, author, color, text, is_action FROM messages
      WHERE room = ?1 AND id > ?2 AND time >= ?3 ORDER BY id ASC LIMIT ?4
      """)
    pruneRoomByCount = try prepare(
      "DELETE FROM messages WHERE room = ?1 AND id <= (SELECT last_id FROM rooms WHERE name = ?1) - ?2")
    pruneAllByCount = try prepare(
      "DELETE FROM messages WHERE id <= (SELECT last_id FROM rooms WHERE name = messages.room) - ?1")
    pruneByTime = try prepare("DELETE FROM messages WHERE time < ?1")
  }

  /// Finalizes every statement and closes the connection.
  func close() {
    for statement in statements { statement.finalize() }
    statements.removeAll()
    sqlite3_close_v2(handle)
  }

  // MARK: Writing

  /// Writes `messages` and raises each room's `last_id`, in one transaction.
  func write(_ messages: some Collection<ChatMessage>) throws(StoreError) {
    let writing = Action.write
    try transaction(writing) { () throws(StoreError) in
      var lastIDs: [String: UInt64] = [:]
      for message in messages {
        insertMessage.bind(1, message.room)
        insertMessage.bind(2, Int64(clamping: message.id))
        insertMessage.bind(3, message.time)
        insertMessage.bind(4, message.author)
        insertMessage.bind(5, message.color)
        message.withTextUTF8 { insertMessage.bind(6, utf8: $0) }
        insertMessage.bind(7, message.isAction ? 1 : 0)
        try insertMessage.run(writing)
        lastIDs[message.room] = max(lastIDs[message.room] ?? 0, message.id)
      }
      for (room, lastID) in lastIDs {
        upsertRoom.bind(1, room)
        upsertRoom.bind(2, InMemoryHistoryStore.newEpoch())
        upsertRoom.bind(3, Int64(clamping: lastID))
        try upsertRoom.run(writing)
      }
    }
  }

  /// Deletes messages beyond `keep` per room in `rooms` (all rooms when `nil`) and,
  /// with a `cutoff`, every message older than it.
  func prune(rooms: Set<String>?, keep: Int, olderThan cutoff: Int64?) throws(StoreError) {
    let writing = Action.prune
    try transaction(writing) { () throws(StoreError) in
      if let rooms {
        for room in rooms {
          pruneRoomByCount.bind(1, room)
          pruneRoomByCount.bind(2, Int64(keep))
          try pruneRoomByCount.run(writing)
        }
      } else {
        pruneAllByCount.bind(1, Int64(keep))
        try pruneAllByCount.run(writing)
      }
      if let cutoff {
        pruneByTime.bind(1, cutoff)
        try pruneByTime.run(writing)
      }
    }
  }

  /// Whether the last transaction failed because the database is full (its
  /// `max_page_count`, the `--history-max-bytes` cap, or the disk): counted in `/metrics`.
  private(set) var lastFailureWasFull = false

  private func transaction(_ action: Action, _ body: () throws(StoreError) -> Void) throws(StoreError) {
    lastFailureWasFull = false
    try begin.run(action)
    do throws(StoreError) {
      try body()
      try commit.run(action)
    } catch {
      // Read before the rollback, which sets the error code again.
      lastFailureWasFull = sqlite3_errcode(handle) & 0xFF == SQLITE_FULL
      // A failed COMMIT (SQLITE_FULL, I/O error) can leave the transaction open.
      if sqlite3_get_autocommit(handle) == 0 { try? rollback.run(action) }
      throw error
    }
  }

  // MARK: Reading

  /// The room's epoch and last id, creating the room with a fresh epoch when missing.
  func room(_ name: String) throws(StoreError) -> (epoch: String, lastID: UInt64) {
    let reading = Action.read
    if let found = try findRoom(name) { return found }
    insertRoom.bind(1, name)
    insertRoom.bind(2, InMemoryHistoryStore.newEpoch())
    try insertRoom.run(.write)
    guard let created = try findRoom(name) else {
      throw reading.error("\(path): room \(name) vanished after it was created")
    }
    return created
  }

  /// The room's epoch and last id, or `nil` when it does not exist.
  func findRoom(_ name: String) throws(StoreError) -> (epoch: String, lastID: UInt64)? {
    selectRoom.bind(1, name)
    defer { selectRoom.reset() }
    guard try selectRoom.step(.read) else { return nil }
    return (selectRoom.string(0), UInt64(clamping: selectRoom.int64(1)))
  }

  /// The newest `limit` kept messages of `room` with an id above `floorID` and a time
  /// not before `floorTime`, oldest first.
  func newest(room: String, floorID: UInt64, floorTime: Int64, limit: Int) throws(StoreError) -> [ChatMessage]
  {
    var result = try rows(selectNewest, room: room, floorID: floorID, floorTime: floorTime, limit: limit)
    result.reverse()
    return result
  }

  /// Kept messages of `room` with an id above `floorID` and a time not before `floorTime`,
  /// oldest first, at most `limit`.
  func after(room: String, floorID: UInt64, floorTime: Int64, limit: Int) throws(StoreError) -> [ChatMessage]
  {
    try rows(selectAfter, room: room, floorID: floorID, floorTime: floorTime, limit: limit)
  }

  private func rows(
    _ statement: SQLiteStatement, room: String, floorID: UInt64, floorTime: Int64, limit: Int
  ) throws(StoreError) -> [ChatMessage] {
    guard limit > 0 else { return [] }
    statement.bind(1, room)
    statement.bind(2, Int64(clamping: floorID))
    statement.bind(3, floorTime)
    statement.bind(4, Int64(limit))
    defer { statement.reset() }
    var result: [ChatMessage] = []
    while try statement.step(.read) {
      result.append(
        ChatMessage(
          id: UInt64(clamping: statement.int64(0)), room: room, time: statement.int64(1),
          author: statement.string(2), color: statement.string(3), text: statement.string(4),
          isAction: statement.int64(5) != 0))
    }
    return result
  }

  // MARK: Helpers

  /// The names of the rooms the database holds (a row each, made when a room is first
  /// opened), at most `limit` of them.
  func roomNames(limit: Int) throws(StoreError) -> [String] {
    let statement = try SQLiteStatement(database: self, sql: "SELECT name FROM rooms ORDER BY name LIMIT ?1")
    defer { statement.finalize() }
    statement.bind(1, Int64(clamping: limit))
    var names: [String] = []
    while try statement.step(.read) { names.append(statement.string(0)) }
    return names
  }

  /// What the database was doing when it failed: the kind of the ``StoreError`` and the
  /// words its message starts with.
  enum Action {
    case open
    case read
    case write
    case prune
    /// Preparing a statement (when the store opens).
    case prepare(sql: String)

    var words: String {
      switch self {
      case .open: "cannot open history at"
      case .read: "cannot read history at"
      case .write: "cannot write history at"
      case .prune: "cannot prune history at"
      case .prepare(let sql): "cannot prepare \"\(sql)\" for"
      }
    }

    /// A ``StoreError`` of this action's kind: "WORDS DETAIL".
    func error(_ detail: String) -> StoreError {
      let message = "\(words) \(detail)"
      switch self {
      case .open, .prepare: return .cannotOpen(message)
      case .read: return .readFailed(message)
      case .write, .prune: return .writeFailed(message)
      }
    }
  }

  /// A `StoreError` "ACTION PATH: sqlite's message".
  func error(_ action: Action, code: Int32) -> StoreError {
    var cause = String(cString: sqlite3_errmsg(handle))
    if cause.isEmpty || cause == "not an error" { cause = String(cString: sqlite3_errstr(code)) }
    return action.error("\(path): \(cause)")
  }

  private func exec(_ sql: String, _ action: Action) throws(StoreError) {
    let rc = sqlite3_exec(handle, sql, nil, nil, nil)
    guard rc == SQLITE_OK else { throw error(action, code: rc) }
  }

  /// Runs a one-off statement and returns the first column of its first row as text.
  private func scalarText(_ sql: String, _ action: Action) throws(StoreError) -> String {
    var statement: OpaquePointer?
    let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
    guard rc == SQLITE_OK, let statement else { throw error(action, code: rc) }
    defer { sqlite3_finalize(statement) }
    switch sqlite3_step(statement) {
    case SQLITE_ROW:
      guard let text = sqlite3_column_text(statement, 0) else { return "" }
      return String(cString: text)
    case SQLITE_DONE:
      return ""
    case let code:
      throw error(action, code: code)
    }
  }
}
