import Dispatch
import Foundation
import SwitchboardChat
import SwitchboardStore
import SwitchboardWire
import Synchronization

/// Runs `body` with a fresh empty directory, removed afterwards (also after a failure).
func withTemporaryDirectory<R>(_ body: (String) throws -> R) throws -> R {
  let path = FileManager.default.temporaryDirectory.path + "/sbstore-\(UUID().uuidString)"
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  defer { removeTree(path) }
  return try body(path)
}

/// Async flavour of `withTemporaryDirectory`.
func withTemporaryDirectoryAsync<R>(_ body: (String) async throws -> R) async throws -> R {
  let path = FileManager.default.temporaryDirectory.path + "/sbstore-\(UUID().uuidString)"
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  defer { removeTree(path) }
  return try await body(path)
}

/// Removes `path`, first restoring write permission on directories a test made read-only.
func removeTree(_ path: String) {
  if let enumerator = FileManager.default.enumerator(atPath: path) {
    for case let child as String in enumerator {
      _ = chmod(path + "/" + child, 0o755)
    }
  }
  _ = chmod(path, 0o755)
  try? FileManager.default.removeItem(atPath: path)
}

/// Whether the tests run as root, where permission bits do not stop writes.
var runningAsRoot: Bool { getuid() == 0 }

/// A message with every field set from `id`, unicode and all.
func makeMessage(_ id: UInt64, room: String = "lobby", time: Int64? = nil, text: String? = nil) -> ChatMessage
{
  ChatMessage(
    id: id, room: room, time: time ?? 1_700_000_000_000 + Int64(id),
    author: id % 2 == 0 ? "zoë" : "bob", color: id % 3 == 0 ? "rebeccapurple" : "teal",
    text: text ?? "message \(id) — héllo 👋🏽 日本語 \"quoted\" 'single' \\ nul:\u{0}:end",
    isAction: id % 5 == 0)
}

/// Appends `messages` in order and waits (at most `timeout`) for every completion.
/// Returns each message's result, `nil` for a completion that never ran.
@discardableResult
func appendAll(
  _ store: some HistoryStore, _ messages: [ChatMessage], timeout: DispatchTimeInterval = .seconds(30)
) -> [Result<Void, StoreError>?] {
  let results = Mutex<[Result<Void, StoreError>?]>(Array(repeating: nil, count: messages.count))
  let group = DispatchGroup()
  for (index, message) in messages.enumerated() {
    group.enter()
    store.append(message) { result in
      results.withLock { $0[index] = result }
      group.leave()
    }
  }
  _ = group.wait(timeout: .now() + timeout)
  return results.withLock { $0 }
}

extension Result where Success == Void, Failure == StoreError {
  var isSuccess: Bool {
    if case .success = self { return true }
    return false
  }
  var failure: StoreError? {
    if case .failure(let error) = self { return error }
    return nil
  }
}

/// A configuration that commits at once, for tests that count batches.
func immediateConfiguration() -> SQLiteStoreConfiguration {
  var configuration = SQLiteStoreConfiguration()
  configuration.batchInterval = .zero
  return configuration
}
