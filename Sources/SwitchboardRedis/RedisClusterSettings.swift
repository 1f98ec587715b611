/// How a ``RedisRoomBroker`` finds out whether it talks to one Redis or to a Redis Cluster
/// (docs/SCALING.md, "Redis Cluster").
public struct RedisClusterSettings: Sendable {
  /// One server or a cluster.
  public enum Topology: Sendable, Hashable {
    /// Ask the server: `INFO cluster` answering `cluster_enabled:1` means a cluster (and so
    /// do ``RedisClusterSettings/seeds``). The default.
    case detect
    /// One server (or a proxy in front of a cluster): no slot routing.
    case standalone
    /// A cluster, whatever the server says.
    case cluster
  }

  /// One server or a cluster; ``Topology/detect`` by default.
  public var topology: Topology
  /// Further cluster nodes to read the slot map from when the broker's own URL does not
  /// answer (`serve --redis` given more than once). Reached with the URL's login and TLS.
  public var seeds: [RedisURL]
  /// How often the slot map is read again without a redirect asking for it.
  public var refreshInterval: Duration

  /// Settings with the given values.
  public init(topology: Topology = .detect, seeds: [RedisURL] = [], refreshInterval: Duration = .seconds(5)) {
    self.topology = topology
    self.seeds = seeds
    self.refreshInterval = refreshInterval
  }
}
