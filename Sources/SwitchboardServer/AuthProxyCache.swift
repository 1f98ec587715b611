import SwitchboardAuth
import SwitchboardIO
import Synchronization

/// Answers of the auth proxy kept for `--auth-proxy-cache` seconds, keyed by everything that
/// decided them (``AuthProxyRequest/cacheKey``). Shared by the loops; bounded: at most
/// ``capacity`` entries, expired ones swept when it is full, and nothing added while it stays
/// full (the request is then simply asked again next time). Failures are never cached.
final class AuthProxyCache: Sendable {
  /// The most entries kept.
  static let capacity = 10_000

  private struct Entry {
    let answer: AuthProxyAnswer
    let expires: Deadline
  }

  private let lifetime: Duration
  private let entries = Mutex<[String: Entry]>([:])

  init(lifetime: Duration) { self.lifetime = lifetime }

  /// The answer kept for `key` that has not expired at `now`.
  func answer(for key: String, now: Deadline) -> AuthProxyAnswer? {
    guard lifetime > .zero else { return nil }
    return entries.withLock { table in
      guard let entry = table[key] else { return nil }
      guard now < entry.expires else {
        table[key] = nil
        return nil
      }
      return entry.answer
    }
  }

  /// Keeps `answer` for `key` from `now` for the cache's lifetime.
  func store(_ answer: AuthProxyAnswer, for key: String, now: Deadline) {
    guard lifetime > .zero else { return }
    entries.withLock { table in
      if table.count >= Self.capacity, table[key] == nil {
        table = table.filter { now < $0.value.expires }
        guard table.count < Self.capacity else { return }
      }
      table[key] = Entry(answer: answer, expires: now.adding(lifetime))
    }
  }
}
