/// Limits the decoder applies; every one is on by default and checked before anything is
/// allocated for the value it guards.
///
/// What happens when one is exceeded (the decoder throws and stays failed; the connection
/// carrying the bytes should be closed):
/// - a bulk string, verbatim string or bulk error announced longer than ``maxBulkLength``
///   → ``RESPError/bulkTooLarge``, as soon as its length line is read (before its bytes);
/// - an array, map, set, push or attribute announcing more than ``maxAggregateCount``
///   elements (a map counts its pairs) → ``RESPError/tooManyElements``;
/// - a value nested deeper than ``maxDepth`` aggregates → ``RESPError/tooDeep``;
/// - more than ``maxBufferedBytes`` appended but not yet decoded → ``RESPError/bufferFull``;
/// - a line (simple string, error, number, length) longer than ``maxLineLength`` without its
///   CRLF → ``RESPError/lineTooLong``.
public struct RESPLimits: Sendable, Hashable {
  /// Default for ``maxBulkLength``: 64 MiB (Redis itself accepts up to 512 MiB, its
  /// `proto-max-bulk-len`; nothing Switchboard stores comes near 64 MiB).
  public static let defaultMaxBulkLength = 64 << 20
  /// Default for ``maxAggregateCount``: 1,048,576 elements in one aggregate.
  public static let defaultMaxAggregateCount = 1 << 20
  /// Default for ``maxDepth``: 32 nested aggregates (Redis replies nest at most 4–5 deep:
  /// `XREAD` is an array of streams of entries of fields).
  public static let defaultMaxDepth = 32
  /// Default for ``maxBufferedBytes``: 128 MiB, room for one largest bulk string and the
  /// replies pipelined around it.
  public static let defaultMaxBufferedBytes = 128 << 20
  /// Default for ``maxLineLength``: 64 KiB.
  public static let defaultMaxLineLength = 64 << 10

  /// Longest bulk string (and verbatim string, bulk error) accepted, in bytes.
  public var maxBulkLength: Int
  /// Most elements one aggregate may announce (pairs, for maps and attributes).
  public var maxAggregateCount: Int
  /// Deepest nesting of aggregates accepted (a top-level array of strings is depth 1).
  public var maxDepth: Int
  /// Most bytes held that are not decoded yet.
  public var maxBufferedBytes: Int
  /// Longest line (without its CRLF) accepted.
  public var maxLineLength: Int

  /// Creates limits; every parameter defaults to the named default.
  public init(
    maxBulkLength: Int = RESPLimits.defaultMaxBulkLength,
    maxAggregateCount: Int = RESPLimits.defaultMaxAggregateCount,
    maxDepth: Int = RESPLimits.defaultMaxDepth,
    maxBufferedBytes: Int = RESPLimits.defaultMaxBufferedBytes,
    maxLineLength: Int = RESPLimits.defaultMaxLineLength
  ) {
    self.maxBulkLength = maxBulkLength
    self.maxAggregateCount = maxAggregateCount
    self.maxDepth = maxDepth
    self.maxBufferedBytes = maxBufferedBytes
    self.maxLineLength = maxLineLength
  }

  /// The defaults: 64 MiB bulk strings, 1 Mi elements, depth 32, 128 MiB buffered, 64 KiB lines.
  public static let `default` = RESPLimits()
}
