import SwitchboardClient
import SwitchboardTestSupport

/// A real ``ChatClient`` (WebSocket JSON, resuming by id and epoch) run in a task, with
/// every message and gap it reported kept, for the process-level tests.
final class ChatWatcher: Sendable {
  struct Seen: Sendable, Hashable {
    var id: UInt64
    var text: String
  }

  let client: ChatClient
  private let seen = Locked<[Seen]>([])
  private let gaps = Locked(0)
  private let connects = Locked(0)
  private let task = Locked<Task<Void, Never>?>(nil)

  init(_ client: ChatClient) {
    self.client = client
    let seen = seen
    let gaps = gaps
    let connects = connects
    let running = Task {
      _ = try? await client.run { session in
        for await event in session.events {
          switch event {
          case .message(let m): if let id = m.id { seen.withLock { $0.append(Seen(id: id, text: m.text)) } }
          case .history(let messages, _, _):
            seen.withLock { list in
              for m in messages {
                if let id = m.id, !list.contains(where: { $0.id == id }) { list.append(Seen(id: id, text: m.text)) }
              }
            }
          case .gap: gaps.withLock { $0 += 1 }
          case .connected: connects.withLock { $0 += 1 }
          default: break
          }
        }
      }
    }
    task.withLock { $0 = running }
  }

  deinit {
    client.close()
    task.withLock { $0?.cancel() }
  }

  /// What arrived, in arrival order.
  var messages: [Seen] { seen.value }
  /// `.gap` events (a resume answered `recovered: false`).
  var gapCount: Int { gaps.value }
  /// `.connected` events.
  var connectCount: Int { connects.value }

  func waitConnected(_ count: Int = 1, timeout: Duration = .seconds(15)) throws {
    guard eventually(timeout: timeout, { connectCount >= count }) else {
      throw TestFailure("\(client.name) connected \(connectCount) times, not \(count)")
    }
  }

  /// Waits until the messages hold every text in `texts`.
  func waitForTexts(_ texts: Set<String>, timeout: Duration = .seconds(20)) throws {
    guard eventually(timeout: timeout, { texts.isSubset(of: Set(messages.map(\.text))) }) else {
      let missing = texts.subtracting(messages.map(\.text)).sorted()
      throw TestFailure("\(client.name) is missing \(missing.count): \(missing.prefix(10))")
    }
  }
}
