/// Settings of a ``ChatHub``.
public struct HubConfiguration: Sendable {
  /// The room a new member lands in.
  public var defaultRoom = "lobby"
  /// Messages kept per room for `history`, `/history` and `since`.
  public var historyLimit = 1000
  /// Longest accepted name, in characters.
  public var maxNameLength = 64
  public init() {}
}
