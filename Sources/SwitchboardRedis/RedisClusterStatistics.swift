/// What a ``RedisClusterClient`` had to do beyond sending commands.
public struct RedisClusterStatistics: Sendable, Hashable {
  /// `MOVED` answers followed (the slot had a new master; the map was updated).
  public var moved = 0
  /// `ASK` answers followed (`ASKING` and the command on the importing node).
  public var asked = 0
  /// Commands sent again after `TRYAGAIN`, `CLUSTERDOWN`, `MASTERDOWN` or `LOADING`.
  public var retried = 0
  /// `CLUSTER SLOTS` reads (the first, periodic ones, and after redirects or losses).
  public var refreshes = 0
  /// All zero.
  public init() {}
}
