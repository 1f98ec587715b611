/// Settings of a ``ChatHub``.
public struct HubConfiguration: Sendable {
  /// The room a new member lands in.
  public var defaultRoom = "lobby"
  /// Messages kept per room for `history`, `/history` and `since`.
  public var historyLimit = 1000
  /// Longest accepted name, in characters.
  public var maxNameLength = 64
  /// Publishes that may wait for one room while the broker loads it; beyond this they fail
  /// at once with ``BrokerError/busy`` (a store or broker that does not answer must not
  /// grow memory without bound).
  public var maxQueuedWhileLoading = 10_000
  /// How long a room may have no member on this node before the hub drops it and tells
  /// the broker (``RoomBroker/roomIdle(_:)``); long enough that join/leave churn does not
  /// close and reopen it. `nil` keeps rooms for good.
  public var roomIdleGrace: Duration? = .seconds(30)
  /// What waits out ``roomIdleGrace`` (real time by default; tests pass one they advance).
  public var timer: any HubTimer = DispatchHubTimer()
  /// Whether names are unique per room: a member asking for a name another member of the
  /// room has gets `NAME (2)` (then `(3)` …). On by default; the server turns it off when it
  /// checks tokens, where the name is the token's `sub` and every session of one user shares it.
  public var uniqueNames = true
  public init() {}
}
