import CSQLite
import SwitchboardChat

/// One prepared statement, prepared once with `SQLITE_PREPARE_PERSISTENT` and reused:
/// each use binds, steps and resets it. Owned by a `SQLiteDatabase` and used only while
/// that database's lock is held.
final class SQLiteStatement {
  private let handle: OpaquePointer
  private unowned let database: SQLiteDatabase
  private let sql: String

  init(database: SQLiteDatabase, sql: String) throws(StoreError) {
    var statement: OpaquePointer?
    let rc = sqlite3_prepare_v3(
      database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
    guard rc == SQLITE_OK, let statement else {
      throw database.error(.prepare(sql: sql), code: rc)
    }
    self.handle = statement
    self.database = database
    self.sql = sql
  }

  /// Finalizes the statement; called by the database before it closes.
  func finalize() {
    sqlite3_finalize(handle)
  }

  func bind(_ index: Int32, _ value: Int64) {
    sqlite3_bind_int64(handle, index, value)
  }

  func bind(_ index: Int32, _ value: String) {
    // Bound by byte count, not as a C string, so text containing NUL survives.
    var value = value
    value.withUTF8 { bind(index, utf8: $0) }
  }

  /// Binds text given as its UTF-8 bytes (copied by SQLite).
  func bind(_ index: Int32, utf8 bytes: UnsafeBufferPointer<UInt8>) {
    if let base = bytes.baseAddress, bytes.count > 0 {
      let chars = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
      sqlite3_bind_text(handle, index, chars, Int32(bytes.count), sb_sqlite_transient())
    } else {
      sqlite3_bind_text(handle, index, "", 0, sb_sqlite_transient())
    }
  }

  /// Steps once: `true` when a row is available, `false` when done.
  /// - Throws: the database's error message, prefixed with `action` ("cannot write history at PATH").
  func step(_ action: SQLiteDatabase.Action) throws(StoreError) -> Bool {
    let rc = sqlite3_step(handle)
    switch rc {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default:
      let error = database.error(action, code: rc)
      sqlite3_reset(handle)
      throw error
    }
  }

  /// Runs a statement that returns no rows, then resets it.
  func run(_ action: SQLiteDatabase.Action) throws(StoreError) {
    defer { reset() }
    _ = try step(action)
  }

  func reset() {
    sqlite3_reset(handle)
  }

  func int64(_ column: Int32) -> Int64 {
    sqlite3_column_int64(handle, column)
  }

  func string(_ column: Int32) -> String {
    guard let text = sqlite3_column_text(handle, column) else { return "" }
    let count = Int(sqlite3_column_bytes(handle, column))
    return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
  }
}
