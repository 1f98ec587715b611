/// A node's latest status as it stored it with the broker
/// (``RoomBroker/storeNodeStatus(node:_:)``): its id and its bytes (the server's JSON).
public typealias NodeStatus = (node: String, bytes: [UInt8])

/// The bounds on node statuses, whatever a broker's store holds.
public enum NodeStatusLimits {
  /// The largest status stored or read, in bytes.
  public static let maxBytes = 16 * 1024
  /// The most statuses read at once.
  public static let maxNodes = 256
}

extension RoomBroker {
  /// A single node has no other to tell.
  public var sharesNodeStatus: Bool { false }

  /// Nothing kept: a single node's status is its own.
  public func storeNodeStatus(node: String, _ status: [UInt8]) {}

  /// None: the server adds its own.
  public func nodeStatuses(
    on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[NodeStatus], BrokerError>) -> Void
  ) {
    executor.execute { completion(.success([])) }
  }

  /// Nothing kept, nothing to forget.
  public func forgetNodeStatuses(_ nodes: [String]) {}
}
