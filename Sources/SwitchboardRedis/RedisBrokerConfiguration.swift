import SwitchboardChat
import SwitchboardLog

/// How a ``RedisRoomBroker`` works: the Redis server, how much it keeps, presence and probe
/// timing.
public struct RedisBrokerConfiguration: Sendable {
  /// The Redis server and the client's timeouts and back-off.
  public var redis: RedisConfiguration
  /// Messages kept per room: the stream's `MAXLEN` (at least 1).
  public var historyLimit: Int
  /// Bytes of message bodies one history read (``RedisRoomBroker/history(room:after:limit:on:completion:)``,
  /// a line member's `/since`) brings back at most, plus the one entry that crosses it (so
  /// the reader can tell more follow) — the server's replay slice (512 KiB): no read costs
  /// more than a replay sends at once. 0 reads up to `limit` entries whatever their size.
  public var historyReadBytes = 512 * 1024
  /// This node's name in presence entries and publish refs; random by default. Must not
  /// contain `|` or spaces.
  public var nodeID: String
  /// How often this node refreshes its members' presence entries.
  public var presenceRefresh: Duration
  /// How long a presence entry lives without a refresh: a dead node's members disappear
  /// from `/who` at most this long after its last refresh.
  public var presenceLifetime: Duration
  /// How long a publish may take, retries included, before it fails with
  /// ``BrokerError/unavailable(_:)``.
  public var publishTimeout: Duration
  /// How long Redis remembers a publish's ref (the idempotency key), in seconds.
  public var refLifetime: Int
  /// How often the broker checks that its pub/sub connection still delivers: it publishes a
  /// probe on its own channel `sb:probe:<node>` over the command connection (``RedisProbe``);
  /// on a cluster, on a channel `sb:probe:<node>:{<tag>}` in each master's slots, one per shard
  /// connection (``RedisClusterProbe``).
  public var probeInterval: Duration
  /// How long after Redis answered the probe's `PUBLISH` the probe may take to arrive on the
  /// subscriber; later, the pub/sub connection is dropped and made again (then every open
  /// room is re-synced from its stream).
  public var probeTimeout: Duration
  /// Where the broker logs (one line per Redis outage and one per return).
  public var logger: Log

  public init(
    redis: RedisConfiguration, historyLimit: Int = 100, nodeID: String? = nil,
    presenceRefresh: Duration = .seconds(5), presenceLifetime: Duration = .seconds(15),
    publishTimeout: Duration = .seconds(10), refLifetime: Int = 60, probeInterval: Duration = .seconds(5),
    probeTimeout: Duration = .seconds(3), logger: Log = .disabled
  ) {
    self.redis = redis
    self.historyLimit = historyLimit
    self.nodeID = nodeID ?? InMemoryHistoryStore.newEpoch()
    self.presenceRefresh = presenceRefresh
    self.presenceLifetime = presenceLifetime
    self.publishTimeout = publishTimeout
    self.refLifetime = refLifetime
    self.probeInterval = probeInterval
    self.probeTimeout = probeTimeout
    self.logger = logger
  }

  /// One server or a Redis Cluster, and the cluster's seeds (detected by default).
  public var cluster = RedisClusterSettings()
}
