import SwitchboardAuth
import SwitchboardChat
import SwitchboardIO
import SwitchboardWire

/// What the admin console's stream sends (docs/OPERATIONS.md, "The admin console"): a
/// `history` event of this node's last points, then once a second a `snapshot` event —
/// this node's point, every node, connections by transport, the rooms, and with `?room=` the
/// room's members and its messages since the previous snapshot. Built on one loop from the
/// hub and the room broker, without blocking it.
enum AdminSnapshot {
  /// The messages a stream's first snapshot of a room carries.
  static let firstMessages = 50
  /// The most rooms a snapshot lists.
  static let maxRooms = 1000
  /// The transports a snapshot counts connections of, always all of them.
  static let transports = ["tcp", "tls", "udp", "ws", "wss"]

  /// One second of one node, as the stream shows it.
  struct Point: Sendable {
    var time: Int64
    var messagesPerSecond = 0.0, deliveriesPerSecond = 0.0
    var connections = 0
    var lagP50Ms = 0.0, lagP99Ms = 0.0
    var heapBytes = 0
    var residentBytes: Int?

    var json: JSONValue {
      .object([
        "time": .number(Double(time)), "messagesPerSecond": .number(messagesPerSecond),
        "deliveriesPerSecond": .number(deliveriesPerSecond), "connections": .number(Double(connections)),
        "lagP50Ms": .number(lagP50Ms), "lagP99Ms": .number(lagP99Ms), "heapBytes": .number(Double(heapBytes)),
        "residentBytes": residentBytes.map { .number(Double($0)) } ?? .null,
      ])
    }
  }

  /// One node's line in `nodes`.
  struct Node: Sendable {
    var node: String, version: String
    var uptimeSeconds: Int
    var connections: [String: Int]
    var members: Int, rooms: Int
    var point: Point
    var isSelf: Bool

    var json: JSONValue {
      .object([
        "node": .string(node), "version": .string(version), "uptimeSeconds": .number(Double(uptimeSeconds)),
        "connections": .number(Double(connections.values.reduce(0, +))), "members": .number(Double(members)),
        "rooms": .number(Double(rooms)), "messagesPerSecond": .number(point.messagesPerSecond),
        "deliveriesPerSecond": .number(point.deliveriesPerSecond), "lagP50Ms": .number(point.lagP50Ms),
        "lagP99Ms": .number(point.lagP99Ms), "heapBytes": .number(Double(point.heapBytes)),
        "self": .bool(isSelf),
      ])
    }
  }

  /// The nodes a snapshot shows, this one first, with per-room rates of this node.
  struct Nodes: Sendable {
    var nodes: [Node]
    var roomRates: [String: Double]
  }

  /// This node now, and the other live nodes' latest (under `--redis`); `done` runs on
  /// `context`'s loop.
  static func nodes(_ context: LoopContext, done: @escaping @Sendable (Nodes) -> Void) {
    let counts = context.hub.counts
    let uptime = ContinuousClock.now - context.core.started
    var connections = Dictionary(uniqueKeysWithValues: transports.map { ($0, 0) })
    for (transport, count) in context.hub.membersByTransport() where connections[transport] != nil {
      connections[transport] = count
    }
    let point = Point(time: ChatClock.milliseconds(), connections: connections.values.reduce(0, +))
    let me = Node(
      node: context.configuration.api.nodeID, version: context.configuration.api.version,
      uptimeSeconds: Int(uptime.components.seconds), connections: connections, members: counts.members,
      rooms: counts.rooms, point: point, isSelf: true)
    done(Nodes(nodes: [me], roomRates: [:]))
  }

  /// The `history` event: this node's last points, oldest first.
  static func historyEvent(_ context: LoopContext) -> [UInt8] {
    event("history", .object(["interval": .number(1), "points": .array([])]))
  }

  /// One server-sent event: `event: NAME` and its data on one line.
  static func event(_ name: String, _ data: JSONValue) -> [UInt8] {
    Array("event: \(name)\ndata: \(data.encoded())\n\n".utf8)
  }

  /// What a tick or a stream's start builds: the snapshots by watched room ("" for none,
  /// when `bare`), encoded as events, and the last message id each room's carried.
  struct Built: Sendable {
    var frames: [String: [UInt8]]
    var lastIDs: [String: UInt64]
  }

  /// Builds the snapshots for `rooms` (each with the id its previous snapshot's messages
  /// ended at, `nil` for a first snapshot: the last ``firstMessages``) and, when `bare`, the
  /// one without a room. The parts every snapshot shares are built once. `done` runs on
  /// `context`'s loop.
  static func build(
    _ context: LoopContext, rooms: [String: UInt64?], bare: Bool, done: @escaping @Sendable (Built) -> Void
  ) {
    let loop = context.loop
    let bound = LoopBound(context, on: loop)
    nodes(context) { nodes in
      ServerAPI.clusterRooms(bound.value) { rows in
        let context = bound.value
        let common = commonFields(context, nodes: nodes, rows: rows)
        let pending = LoopBound(rooms.count, on: loop)
        let parts = LoopBound([String: (JSONValue, UInt64)](), on: loop)
        let finish: @Sendable () -> Void = {
          var built = Built(frames: [:], lastIDs: [:])
          if bare { built.frames[""] = event("snapshot", .object(common)) }
          for (room, (part, last)) in parts.value {
            var fields = common
            fields["room"] = part
            built.frames[room] = event("snapshot", .object(fields))
            built.lastIDs[room] = last
          }
          done(built)
        }
        guard !rooms.isEmpty else { return finish() }
        for (room, after) in rooms {
          roomPart(context, room: room, after: after) { part, last in
            parts.value[room] = (part, last)
            pending.value -= 1
            if pending.value == 0 { finish() }
          }
        }
      }
    }
  }

  private static func commonFields(_ context: LoopContext, nodes: Nodes, rows: [ServerAPI.RoomRow])
    -> [String: JSONValue]
  {
    var connections = Dictionary(uniqueKeysWithValues: transports.map { ($0, 0) })
    for node in nodes.nodes {
      for (transport, count) in node.connections where connections[transport] != nil {
        connections[transport, default: 0] += count
      }
    }
    let me = nodes.nodes[0]
    let rooms = rows.prefix(maxRooms).map { row -> JSONValue in
      .object([
        "room": .string(row.room), "members": .number(Double(row.members)),
        "messagesPerSecond": nodes.roomRates[row.room].map { .number($0) } ?? .null,
        "lastId": row.lastID.map { .number(Double($0)) } ?? .null,
      ])
    }
    return [
      "time": .number(Double(me.point.time)), "node": .string(me.node), "point": me.point.json,
      "nodes": .array(nodes.nodes.map(\.json)),
      "connections": .object(connections.mapValues { .number(Double($0)) }), "rooms": .array(rooms),
    ]
  }

  /// A room's part: its members over every node and its messages after `after` (the last
  /// ``firstMessages`` when `nil`); `done` gets it with the last id it carries.
  private static func roomPart(
    _ context: LoopContext, room: String, after: UInt64?,
    done: @escaping @Sendable (JSONValue, UInt64) -> Void
  ) {
    let loop = context.loop
    let hub = context.hub
    let shard = context.shard
    ServerAPI.clusterMembers(room, context) { local, remote in
      hub.history(room: room, after: after ?? 0, shard: shard) { result in
        let messages = (try? result.get()) ?? []
        let shown = after == nil ? Array(messages.suffix(firstMessages)) : messages
        let last = shown.last?.id ?? after ?? 0
        let members = (local + remote).map(memberJSON)
        let part = JSONValue.object([
          "room": .string(room), "members": .array(members), "messages": .array(shown.map(ServerAPI.message)),
        ])
        let answer = LoopBound(done, on: loop)
        answer.value(part, last)
      }
    }
  }

  /// A member as the stream shows it: the server API's presence fields, an address
  /// (`null` until known), transport and since `null` where the node does not record them.
  private static func memberJSON(_ member: JSONValue) -> JSONValue {
    guard var fields = member.objectValue else { return member }
    if fields["address"] == nil { fields["address"] = .null }
    return .object(fields)
  }
}
