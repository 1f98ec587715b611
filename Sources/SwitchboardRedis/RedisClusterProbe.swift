/// The probes of a cluster's shard subscriptions: one ``RedisProbe`` per master connection of a
/// ``RedisClusterSubscriber``, keyed by the master's address. A pure value type, tested without
/// Redis (`RedisClusterProbeTests`); the subscriber carries out what it answers.
///
/// A shard connection only hears shard channels of its own master's slots, so each master gets
/// a probe channel of its own: `<prefix>:{<tag>}`, the tag the smallest integer whose slot that
/// master serves (``channel(prefix:for:in:)``). Every probe interval a token goes out on it with
/// `SPUBLISH` (through the cluster's command client, which routes it to that master); the
/// verdicts are the single server's (``RedisProbe``): no receiver, or no token within the probe
/// timeout of the answer, means the connection is silent and is replaced.
///
/// Each shard's phase changes only through checked transitions (``Phase/allows(_:)``):
///
/// ```
/// subscribing ──confirmed──▶ probing ──silent──▶ replacing ──ready──▶ probing
///      │   ▲                  │   │                                      ▲
///      │   └──channel moved───┘   └──lost──▶ lost ──────ready────────────┘
///      └──lost──▶ lost
/// ```
struct RedisClusterProbe: Sendable {
  typealias Node = RedisClusterMap.Node

  /// Where one shard's probing is.
  enum Phase: Sendable, Hashable, CustomStringConvertible {
    /// The probe channel's `SSUBSCRIBE` is on its way; no probe yet.
    case subscribing
    /// Subscribed: probes go out every interval.
    case probing
    /// Found silent at `since` (ms since 1970): the connection is being replaced.
    case replacing(since: Int64)
    /// The connection was lost by itself; it reconnects (and subscribes again) on its own.
    case lost

    /// Whether the phase may change from `self` to `next`.
    func allows(_ next: Phase) -> Bool {
      switch (self, next) {
      case (.subscribing, .probing), (.subscribing, .lost): true
      case (.probing, .subscribing), (.probing, .replacing), (.probing, .lost): true
      case (.replacing, .probing): true
      case (.lost, .probing): true
      default: false
      }
    }

    var description: String {
      switch self {
      case .subscribing: "subscribing"
      case .probing: "probing"
      case .replacing(let since): "replacing (since \(since))"
      case .lost: "lost"
      }
    }
  }

  /// One master's probe.
  struct Shard: Sendable {
    /// Its probe channel (in one of its slots).
    var channel: String
    private(set) var phase = Phase.subscribing
    var probe = RedisProbe()

    init(channel: String) { self.channel = channel }

    /// Moves to `next`; a transition ``Phase/allows(_:)`` refuses is a bug.
    mutating func move(to next: Phase) {
      precondition(phase.allows(next), "cluster probe: \(phase) → \(next)")
      phase = next
    }
  }

  /// A probe channel's subscription to change on a master's connection.
  struct Change: Sendable, Hashable {
    var node: Node
    /// The channel to drop there (its slot moved away, or the node serves none any more).
    var unsubscribe: String?
    /// The channel to subscribe there.
    var subscribe: String?
  }

  /// How many tags ``channel(prefix:for:in:)`` tries: the integers below it reach every one of
  /// the 16,384 slots (`RedisClusterProbeTests` checks it).
  static let tagLimit = 1 << 17

  /// The channels' common start, `sb:probe:<node>` for a broker.
  let prefix: String
  private(set) var shards: [Node: Shard] = [:]

  init(prefix: String) { self.prefix = prefix }

  /// `<prefix>:{n}` for the smallest `n` whose slot `node` serves in `map`; `nil` when it
  /// serves none (a replica, or a master that lost its slots).
  static func channel(prefix: String, for node: Node, in map: RedisClusterMap) -> String? {
    let slots = Set(map.slots(of: node))
    guard !slots.isEmpty else { return nil }
    for tag in 0..<tagLimit
    where slots.contains(Int(RedisKeySlot.crc16(String(tag).utf8)) % RedisKeySlot.count) {
      return "\(prefix):{\(tag)}"
    }
    return nil
  }

  /// Which probe channel each of `nodes` (the masters this node has a connection to) needs in
  /// `map`: a node without one gets one, a node whose channel's slot moved away gets another,
  /// a node that serves no slot any more stops being probed. Returns the subscriptions to
  /// change.
  mutating func follow(_ map: RedisClusterMap, nodes: some Sequence<Node>) -> [Change] {
    var changes: [Change] = []
    var wanted = Set<Node>()
    for node in nodes {
      wanted.insert(node)
      let current = shards[node]?.channel
      if let current, map.node(forKey: Array(current.utf8)) == node { continue }
      let next = Self.channel(prefix: prefix, for: node, in: map)
      guard current != next else { continue }
      changes.append(Change(node: node, unsubscribe: current, subscribe: next))
      guard let next else {
        shards[node] = nil
        continue
      }
      guard var shard = shards[node] else {
        shards[node] = Shard(channel: next)
        continue
      }
      shard.channel = next
      shard.probe.reset()
      // A connection being made again subscribes to the new channel before it is ready.
      if shard.phase == .probing { shard.move(to: .subscribing) }
      shards[node] = shard
    }
    for (node, shard) in shards where !wanted.contains(node) {
      changes.append(Change(node: node, unsubscribe: shard.channel, subscribe: nil))
    }
    shards = shards.filter { wanted.contains($0.key) }
    return changes
  }

  /// Runs `body` on `node`'s shard and returns its answer; `nil` when this probe does not
  /// follow `node` (its connection was dropped, or the map moved its slots away). One lookup.
  private mutating func withShard<T>(_ node: Node, _ body: (inout Shard) -> T) -> T? {
    shards.withValue(forKey: node, body)
  }

  /// Redis confirmed `channel` on `node`'s connection: probing starts.
  mutating func subscribed(_ node: Node, channel: String) {
    withShard(node) { shard in
      guard shard.channel == channel, shard.phase == .subscribing else { return }
      shard.move(to: .probing)
    }
  }

  /// The next probe of every shard that is probing and has none outstanding.
  mutating func start() -> [(node: Node, channel: String, token: UInt64)] {
    var due: [(node: Node, channel: String, token: UInt64)] = []
    for index in shards.indices where shards.values[index].phase == .probing {
      if let token = shards.values[index].probe.start() {
        due.append((shards.keys[index], shards.values[index].channel, token))
      }
    }
    return due
  }

  /// Redis answered the `SPUBLISH` of `token` on `channel`: `receivers` connections got it.
  /// `now` (ms since 1970) marks a replacement.
  mutating func answered(_ node: Node, channel: String, token: UInt64, receivers: Int, now: Int64)
    -> RedisProbe.Verdict
  {
    withShard(node) { shard in
      guard shard.channel == channel, shard.phase == .probing else { return .none }
      return Self.decided(&shard, shard.probe.answered(token: token, receivers: receivers), now: now)
    } ?? .none
  }

  /// The `SPUBLISH` of `token` failed (or went to a master the map no longer names): no verdict.
  mutating func commandFailed(_ node: Node, token: UInt64) {
    shards[node]?.probe.commandFailed(token: token)
  }

  /// `token` came back on `node`'s connection, on `channel`.
  mutating func arrived(_ node: Node, channel: String, token: UInt64) {
    withShard(node) { shard in
      if shard.channel == channel { shard.probe.arrived(token: token) }
    }
  }

  /// The probe timeout after the answer to `token` passed.
  mutating func expired(_ node: Node, token: UInt64, now: Int64) -> RedisProbe.Verdict {
    withShard(node) { shard in
      guard shard.phase == .probing else { return .none }
      return Self.decided(&shard, shard.probe.expired(token: token), now: now)
    } ?? .none
  }

  /// `node`'s connection changed state. Returns `true` when a connection this probe had found
  /// silent is ready again (replaced).
  mutating func connection(_ node: Node, _ next: RedisConnectionState) -> Bool {
    withShard(node) { shard in
      switch (next, shard.phase) {
      case (.backingOff, .subscribing), (.backingOff, .probing):
        shard.probe.reset()
        shard.move(to: .lost)
      case (.ready, .lost):
        // The connection subscribed to everything it had, the probe channel too, before ready.
        shard.probe.reset()
        shard.move(to: .probing)
      case (.ready, .replacing):
        shard.probe.reset()
        shard.move(to: .probing)
        return true
      default: break
      }
      return false
    } ?? false
  }

  private static func decided(_ shard: inout Shard, _ verdict: RedisProbe.Verdict, now: Int64)
    -> RedisProbe.Verdict
  {
    if case .replace = verdict { shard.move(to: .replacing(since: now)) }
    return verdict
  }
}
