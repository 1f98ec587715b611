import SwitchboardChat
import SwitchboardRESP

/// Node statuses (the admin console's node list): one hash, ``nodeStatusKey``, a field per
/// node id holding that node's latest status. One key is one slot, so a Redis Cluster
/// routes every command here to one master like any single-key command. Each node writes
/// its field once a second; readers judge the age from the status itself and forget the
/// fields of nodes gone for long (Redis 7.0 has no expiry per hash field).
extension RedisRoomBroker {
  /// The hash of node statuses.
  static let nodeStatusKey = "sb:nodes"

  /// Every node writes its status: any node's console lists them all.
  public var sharesNodeStatus: Bool { true }

  /// `HSET sb:nodes NODE STATUS`, unanswered (the next second writes it again).
  public func storeNodeStatus(node: String, _ status: [UInt8]) {
    guard status.count <= NodeStatusLimits.maxBytes else { return }
    loop.execute { [self] in
      guard let client else { return }
      client.send(
        RESPCommand(bytes: [Array("HSET".utf8), Array(Self.nodeStatusKey.utf8), Array(node.utf8), status])
      ) {
        _ in
      }
    }
  }

  /// `HGETALL sb:nodes`: each field and value, leaving out values over
  /// ``NodeStatusLimits/maxBytes`` and fields past ``NodeStatusLimits/maxNodes``.
  public func nodeStatuses(
    on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[NodeStatus], BrokerError>) -> Void
  ) {
    loop.execute { [self] in
      guard let client else { return executor.execute { completion(.failure(.closed)) } }
      client.send(RESPCommand("HGETALL", Self.nodeStatusKey)) { result in
        switch result {
        case .failure(let error):
          executor.execute { completion(.failure(.unavailable("cannot read node statuses: \(error)"))) }
        case .success(let reply):
          let statuses = Self.nodeStatuses(reply.elements ?? [])
          executor.execute { completion(.success(statuses)) }
        }
      }
    }
  }

  /// The pairs of an `HGETALL` answer, within the limits.
  static func nodeStatuses(_ elements: [RESPValue]) -> [NodeStatus] {
    var statuses: [NodeStatus] = []
    var i = 0
    while i + 1 < elements.count, statuses.count < NodeStatusLimits.maxNodes {
      defer { i += 2 }
      guard let node = elements[i].string, node.utf8.count <= 256, let bytes = elements[i + 1].bytes,
        bytes.count <= NodeStatusLimits.maxBytes
      else { continue }
      statuses.append((node, bytes))
    }
    return statuses
  }

  /// `HDEL sb:nodes NODE…`.
  public func forgetNodeStatuses(_ nodes: [String]) {
    guard !nodes.isEmpty else { return }
    loop.execute { [self] in
      guard let client else { return }
      client.send(RESPCommand(["HDEL", Self.nodeStatusKey] + nodes)) { _ in }
    }
  }
}
