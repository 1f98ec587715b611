/// The bounds of a request for recent history, the same on every dialect: the line
/// dialect's `/history [N]` and the JSON protocol's `history` frame (docs/PROTOCOLS.md).
public enum HistoryRequest {
  /// How many messages a request without a count asks for.
  public static let defaultCount = 20
  /// The largest count a JSON `history` request may ask for: the most messages a room can
  /// keep (`switchboard serve --history`'s upper bound). The answer holds at most what the
  /// room keeps, whatever the count.
  public static let maxCount = 10_000_000
}
