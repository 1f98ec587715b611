import SwitchboardServer
import SwitchboardStore

/// The `serve` flags of the bounds on what grows (docs/OPERATIONS.md, "Limits"): rooms,
/// room joins, the history database's size.
enum ServeGrowthOptions {
  /// The flags that take a value, for `Arguments(valued:)`.
  static let valued: Set<String> = ["max-rooms", "max-joins-per-minute", "history-max-bytes"]

  /// The lines of `serve --help` that describe them.
  static let help = """
      --max-rooms N             rooms kept, in memory and on disk (default 10000; 0: no cap);
                                joining a new one past it: `! too many rooms …` / 503
      --max-joins-per-minute N  room joins a minute per connection or UDP source, burst N
                                (default 60; 0: off); excess: `! too many room joins …`
      --history-max-bytes BYTES cap on the history database's size (default: none, the disk);
                                past it new messages are delivered but not stored
    """

  /// Reads the flags into `limits` and `store`.
  static func apply(_ args: Arguments, to limits: inout ServerLimits, store: inout SQLiteStoreConfiguration) throws {
    if let n = try args.int("max-rooms", in: 0...100_000_000) { limits.maxRooms = n == 0 ? nil : n }
    if let n = try args.int("max-joins-per-minute", in: 0...1_000_000) { limits.maxJoinsPerMinute = n == 0 ? nil : n }
    if let n = try args.int("history-max-bytes", in: 0...(1 << 50)) { store.maxDatabaseBytes = n == 0 ? nil : n }
  }
}
