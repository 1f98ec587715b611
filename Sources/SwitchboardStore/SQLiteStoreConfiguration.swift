import SwitchboardLog

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How a `SQLiteHistoryStore` keeps, batches and syncs messages.
public struct SQLiteStoreConfiguration: Sendable {
  /// When `append`'s completion runs, and so when the server acknowledges a message.
  public enum Durability: Sendable, Hashable, CustomStringConvertible {
    /// The completion runs at once; the message is committed later with the next batch.
    /// A crash loses the last few milliseconds of messages.
    case none
    /// The completion runs once the message's batch transaction committed to the WAL
    /// (`synchronous=NORMAL`): it survives the process being killed, though a power loss
    /// may lose the last batches. The default.
    case batched
    /// As `.batched`, but every commit is fsynced (`synchronous=FULL`): it survives power loss.
    case fsync

    /// `none`, `batched` or `fsync`, as the command line spells them.
    public var description: String {
      switch self {
      case .none: "none"
      case .batched: "batched"
      case .fsync: "fsync"
      }
    }
  }

  /// Messages kept per room (the newest ones); older ones are pruned and never returned.
  /// Default 1000.
  public var retentionCount: Int = 1000
  /// Messages older than this (by their `time`) are pruned and never returned; `nil`
  /// (the default) keeps by count only.
  public var retentionAge: Duration? = nil
  /// When completions run; see `Durability`. Default `.batched`.
  public var durability: Durability = .batched
  /// How long the writer, woken by the first message after a quiet spell, waits for more
  /// before committing them together. A batch that fills up, a read that needs the
  /// pending messages, or closing ends the wait early. Default 5 ms; zero commits at once.
  public var batchInterval: Duration = .milliseconds(5)
  /// The most messages committed in one transaction. Default 512.
  public var maxBatch: Int = 512
  /// The most messages waiting for the writer; beyond it `append` fails at once with
  /// "history write queue is full" (the disk is stalled). Default 65 536.
  public var maxPending: Int = 65_536
  /// Caps the database file's size: past it, writes fail with "database or disk is full"
  /// until pruning frees pages. `nil` (the default) leaves it to the disk.
  public var maxDatabaseBytes: Int? = nil
  /// Count-based pruning of the rooms written since the last prune runs after this many
  /// batches (and soon after a failed write). Default 64.
  public var pruneEveryBatches: Int = 64
  /// Age-based pruning, which scans the whole table, runs at most this often. Default 60 s.
  public var agePruneInterval: Duration = .seconds(60)
  /// The current time in milliseconds since the Unix epoch, for `retentionAge`.
  /// Defaults to the system's wall clock; tests inject their own.
  public var clock: @Sendable () -> Int64 = { SQLiteStoreConfiguration.wallClock() }
  /// Where the store logs (opening, closing, failed prunes and commits). The default
  /// writes nothing; the server passes its own.
  public var logger = Log.disabled

  /// The defaults: 1000 messages per room, any age, `.batched`, 5 ms / 512 messages batches.
  public init() {}

  /// The defaults, keeping the newest `retentionCount` messages per room.
  public init(retentionCount: Int) {
    self.retentionCount = retentionCount
  }

  /// A configuration with the most commonly changed settings.
  public init(retentionCount: Int = 1000, retentionAge: Duration? = nil, durability: Durability = .batched) {
    self.retentionCount = retentionCount
    self.retentionAge = retentionAge
    self.durability = durability
  }

  /// Milliseconds since the Unix epoch from `CLOCK_REALTIME`.
  public static func wallClock() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
  }
}

extension Duration {
  /// Whole milliseconds, saturating.
  var wholeMilliseconds: Int64 {
    let (seconds, attoseconds) = components
    let (ms, overflow) = seconds.multipliedReportingOverflow(by: 1000)
    if overflow { return seconds < 0 ? .min : .max }
    return ms.addingReportingOverflow(attoseconds / 1_000_000_000_000_000).overflow
      ? .max : ms + attoseconds / 1_000_000_000_000_000
  }
}
