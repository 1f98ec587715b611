import Dispatch
import SwitchboardChat
import SwitchboardWire
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Measures how fast a `SQLiteHistoryStore` takes messages: one thread appends as fast
/// as it can, round-robin over the rooms, and the clock stops when the last completion
/// has run.
public enum StoreBenchmark {
  /// The outcome of one run.
  public struct Report: Sendable, CustomStringConvertible {
    /// Messages appended.
    public var messages: Int
    /// Rooms they were spread over.
    public var rooms: Int
    /// The durability measured.
    public var durability: SQLiteStoreConfiguration.Durability
    /// Seconds from the first append until every completion had run.
    public var seconds: Double
    /// Seconds from the first append until everything was committed and the store closed
    /// (for `.none`, where completions run before the commit, this is the one to compare).
    public var committedSeconds: Double
    /// Completions that reported a failure.
    public var failures: Int

    /// `messages / seconds`.
    public var messagesPerSecond: Double { seconds > 0 ? Double(messages) / seconds : 0 }

    /// One line, e.g. `100000 messages, 10 rooms, batched: 0.412 s, 242718 msg/s (committed in 0.415 s)`.
    public var description: String {
      let rate = Int(messagesPerSecond.rounded())
      let committedRate = committedSeconds > 0 ? Int((Double(messages) / committedSeconds).rounded()) : 0
      var line =
        "\(messages) messages, \(rooms) room\(rooms == 1 ? "" : "s"), \(durability): "
        + "\(format(seconds)) s, \(rate) msg/s (all committed in \(format(committedSeconds)) s, \(committedRate) msg/s)"
      if failures > 0 { line += ", \(failures) failed" }
      return line
    }

    private func format(_ value: Double) -> String {
      let thousandths = Int((value * 1000).rounded())
      let fraction = String(thousandths % 1000)
      return "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
  }

  /// Appends `messages` messages over `rooms` rooms into a fresh store in a new
  /// subdirectory of `directory` (removed afterwards unless `keepingStore`, which lets a
  /// test read back what was written), with default settings but `durability` (and a
  /// `maxPending` large enough to queue the whole run).
  /// - Throws: `StoreError` if the store cannot be opened.
  public static func run(
    directory: String, messages: Int, rooms: Int, durability: SQLiteStoreConfiguration.Durability,
    keepingStore: Bool = false
  ) throws(StoreError) -> Report {
    let rooms = max(1, rooms)
    let count = max(0, messages)
    let subdirectory =
      (directory.hasSuffix("/") ? directory : directory + "/") + "bench-\(InMemoryHistoryStore.newEpoch())"
    var configuration = SQLiteStoreConfiguration()
    configuration.durability = durability
    // The producer outruns any disk: let the whole run queue rather than measure rejections.
    configuration.maxPending = max(configuration.maxPending, count)
    let store = try SQLiteHistoryStore(directory: subdirectory, configuration: configuration)
    defer {
      if !keepingStore {
        for suffix in ["", "-wal", "-shm"] { unlink(store.path + suffix) }
        rmdir(subdirectory)
      }
    }
    let roomNames = (0..<rooms).map { "room-\($0)" }
    var nextIDs = [UInt64](repeating: 0, count: rooms)
    let remaining = Atomic<Int>(count)
    let failures = Atomic<Int>(0)
    let done = DispatchSemaphore(value: 0)
    let text = "the quick brown fox jumps over the lazy dog, again"
    let time = SQLiteStoreConfiguration.wallClock()

    let clock = ContinuousClock()
    let start = clock.now
    for index in 0..<count {
      let room = index % rooms
      nextIDs[room] += 1
      let message = ChatMessage(
        id: nextIDs[room], room: roomNames[room], time: time, author: "bench", color: "teal", text: text)
      store.append(message) { result in
        if case .failure = result { failures.add(1, ordering: .relaxed) }
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { done.signal() }
      }
    }
    if count > 0 { done.wait() }
    let acknowledged = start.duration(to: clock.now)
    store.close()
    let committed = start.duration(to: clock.now)
    return Report(
      messages: count, rooms: rooms, durability: durability, seconds: seconds(acknowledged),
      committedSeconds: seconds(committed), failures: failures.load(ordering: .relaxed))
  }

  private static func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
