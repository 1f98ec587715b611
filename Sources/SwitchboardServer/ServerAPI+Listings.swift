import SwitchboardAuth
import SwitchboardChat
import SwitchboardIO

/// The room list and a room's members over every node: what `GET /api/rooms` and
/// `GET /api/rooms/ROOM/presence` answer and what the admin console's snapshots show.
extension ServerAPI {
  /// A room with members on some node.
  struct RoomRow: Sendable {
    var room: String
    /// Members on every node (under `--redis`), else here.
    var members: Int
    /// The last id and epoch, where the room is open here.
    var lastID: UInt64?
    var epoch: String?

    /// As the server API lists it.
    var json: JSONValue {
      .object([
        "room": .string(room), "members": .number(Double(members)),
        "lastId": lastID.map { .number(Double($0)) } ?? .null, "epoch": epoch.map { .string($0) } ?? .null,
      ])
    }
  }

  /// This node's rooms with members, and under `--redis` every node's (with their members
  /// on every node; the last id and epoch only where the room is open here), sorted by name;
  /// `done` runs on `context`'s loop.
  static func clusterRooms(_ context: LoopContext, done: @escaping @Sendable ([RoomRow]) -> Void) {
    let local = context.hub.roomSummaries()
    context.hub.broker.openRooms(on: context.loop) { result in
      var byName: [String: RoomRow] = [:]
      for room in local {
        byName[room.name] = RoomRow(
          room: room.name, members: room.members, lastID: room.lastID, epoch: room.epoch)
      }
      for cluster in (try? result.get()) ?? [] {
        let here = local.first { $0.name == cluster.room }
        byName[cluster.room] = RoomRow(
          room: cluster.room, members: max(cluster.members, here?.members ?? 0), lastID: here?.lastID,
          epoch: here?.epoch)
      }
      done(byName.keys.sorted().map { byName[$0]! })
    }
  }

  /// The members of `room`: this node's with their transport and since when, then (under
  /// `--redis`) the other nodes' from the broker's presence, with their node (transport and
  /// since `null` only for a node of an earlier version, which does not record them). `done`
  /// runs on `context`'s loop with the two lists as the server API shows members.
  static func clusterMembers(
    _ room: String, _ context: LoopContext,
    done: @escaping @Sendable (_ local: [JSONValue], _ remote: [JSONValue]) -> Void
  ) {
    let node = context.configuration.api.nodeID
    let local = context.hub.presence(room: room).map { entry -> JSONValue in
      .object([
        "name": .string(entry.name), "transport": .string(entry.transport), "node": .string(node),
        "since": .string(rfc3339(milliseconds: entry.since)),
      ])
    }
    context.hub.broker.remoteMemberNodes(room: room, on: context.loop) { result in
      let remote = ((try? result.get()) ?? []).sorted { ($0.name, $0.node) < ($1.name, $1.node) }
      let others = remote.map { entry -> JSONValue in
        .object([
          "name": .string(entry.name), "node": .string(entry.node),
          "transport": entry.transport.map { .string($0) } ?? .null,
          "since": entry.since.map { .string(rfc3339(milliseconds: $0)) } ?? .null,
        ])
      }
      done(local, others)
    }
  }
}
