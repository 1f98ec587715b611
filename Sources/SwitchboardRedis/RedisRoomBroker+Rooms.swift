import SwitchboardChat
import SwitchboardRESP
import Synchronization

/// The server API's room list across the cluster (docs/API.md, `GET /api/rooms`).
///
/// Every node writes the rooms it has open into one registry, ``roomRegistry`` (a sorted
/// set of room names scored by expiry in ms, like presence): when a room opens and on each
/// presence refresh. One key, so it works the same on one Redis server and on a Redis
/// Cluster (routed to the master of its slot), where no command lists sharded channels; and
/// unlike `PUBSUB CHANNELS` it does not make Redis walk every channel it has.
extension RedisRoomBroker {
  /// The registry of rooms some node has open: room name → expiry (ms since the epoch).
  static let roomRegistry = "sb:rooms"

  /// The most rooms ``openRooms(on:completion:)`` lists (docs/API.md): the room list's
  /// answer and the member counts it asks Redis for stay bounded however many rooms exist.
  public static let listedRoomLimit = 1000

  /// The rooms some node has open (the registry's live entries, at most
  /// ``listedRoomLimit``) with their live members on every node (the presence sets).
  public func openRooms(
    on executor: any ShardExecutor,
    completion: @escaping @Sendable (Result<[(room: String, members: Int)], BrokerError>) -> Void
  ) {
    loop.execute { [self] in
      guard let client else { return executor.execute { completion(.failure(.closed)) } }
      let now = String(ChatClock.milliseconds())
      let limit = String(Self.listedRoomLimit)
      client.send(RESPCommand("ZRANGEBYSCORE", Self.roomRegistry, now, "+inf", "LIMIT", "0", limit)) { [self] result in
        switch result {
        case .failure(let error):
          executor.execute { completion(.failure(.unavailable("cannot list rooms: \(error)"))) }
        case .success(let reply):
          let rooms = (reply.elements ?? []).compactMap(\.string)
          count(rooms, client: client, on: executor, completion: completion)
        }
      }
    }
  }

  /// Writes `rooms` into the registry with a fresh expiry and drops the expired entries.
  /// Call on the broker's loop.
  func register(_ rooms: [String]) {
    guard let client, !rooms.isEmpty else { return }
    let score = String(expiry())
    var command = ["ZADD", Self.roomRegistry]
    for room in rooms { command += [score, room] }
    client.send(RESPCommand(command)) { _ in }
    let now = String(ChatClock.milliseconds())
    client.send(RESPCommand("ZREMRANGEBYSCORE", Self.roomRegistry, "-inf", "(" + now)) { _ in }
  }

  /// Refreshes the registry entries of every room open here (with the presence refresh).
  func refreshRooms() {
    loop.execute { [self] in
      register(state.withLock { $0.isClosed ? [] : Array($0.rooms.keys) })
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
