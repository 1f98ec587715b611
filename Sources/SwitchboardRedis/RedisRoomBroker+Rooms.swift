import SwitchboardChat
import SwitchboardRESP
import Synchronization

/// The server API's room list across the cluster (docs/API.md, `GET /api/rooms`).
extension RedisRoomBroker {
  /// The rooms some node has open (their channels have subscribers: `PUBSUB CHANNELS`)
  /// with their live members on every node (the presence sets). On a Redis Cluster, whose
  /// sharded channels no one command lists, none: the caller lists this node's rooms.
  public func openRooms(
    on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[(room: String, members: Int)], BrokerError>) -> Void
  ) {
    loop.execute { [self] in
      guard let client else { return executor.execute { completion(.failure(.closed)) } }
      guard !isCluster else { return executor.execute { completion(.success([])) } }
      client.send(RESPCommand("PUBSUB", "CHANNELS", "sb:{*}:ch")) { [self] result in
        switch result {
        case .failure(let error):
          executor.execute { completion(.failure(.unavailable("cannot list rooms: \(error)"))) }
        case .success(let reply):
          let rooms = (reply.elements ?? []).compactMap { $0.string.flatMap(RedisRoomKeys.room(channel:)) }
          count(rooms, client: client, on: executor, completion: completion)
        }
      }
    }
  }

  /// The live members of each of `rooms` (on the broker's loop).
  private func count(
    _ rooms: [String], client: any RedisBrokerCommands, on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[(room: String, members: Int)], BrokerError>) -> Void
  ) {
    guard !rooms.isEmpty else { return executor.execute { completion(.success([])) } }
    let now = String(ChatClock.milliseconds())
    let counts = Mutex<(left: Int, found: [(room: String, members: Int)])>((rooms.count, []))
    for room in rooms {
      client.send(RESPCommand("ZCOUNT", RedisRoomKeys(room: room).members, now, "+inf")) { result in
        let done = counts.withLock { state -> [(room: String, members: Int)]? in
          if case .success(let reply) = result, let n = reply.integer, n > 0 { state.found.append((room, Int(n))) }
          state.left -= 1
          return state.left == 0 ? state.found : nil
        }
        if let done { executor.execute { completion(.success(done.sorted { $0.room < $1.room })) } }
      }
    }
  }
}
