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
  static var transports: [String] { ServerSample.transports }

  /// A sample as a point of the charts (`POINT`).
  static func point(_ s: ServerSample) -> JSONValue {
    .object([
      "time": .number(Double(s.time)), "messagesPerSecond": .number(s.messagesPerSecond),
      "deliveriesPerSecond": .number(s.deliveriesPerSecond),
      "connections": .number(Double(s.connections.values.reduce(0, +))), "lagP50Ms": .number(s.lagP50Ms),
      "lagP99Ms": .number(s.lagP99Ms), "heapBytes": .number(Double(s.heapBytes)),
      "residentBytes": s.residentBytes.map { .number(Double($0)) } ?? .null,
    ])
  }

  /// A node's line in `nodes`.
  static func node(_ s: ServerSample, isSelf: Bool) -> JSONValue {
    .object([
      "node": .string(s.node), "version": .string(s.version),
      "uptimeSeconds": .number(Double(s.uptimeSeconds)),
      "connections": .number(Double(s.connections.values.reduce(0, +))),
      "members": .number(Double(s.members)),
      "rooms": .number(Double(s.rooms)), "messagesPerSecond": .number(s.messagesPerSecond),
      "deliveriesPerSecond": .number(s.deliveriesPerSecond), "lagP50Ms": .number(s.lagP50Ms),
      "lagP99Ms": .number(s.lagP99Ms), "heapBytes": .number(Double(s.heapBytes)), "self": .bool(isSelf),
    ])
  }

  /// This node's latest sample; in the server's first second, before there is one, its
  /// counts with every rate at zero.
  static func currentSample(_ context: LoopContext) -> ServerSample {
    if let latest = context.core.sampler.latest { return latest }
    let counts = context.hub.counts
    return ServerSample(
      time: ChatClock.milliseconds(), node: context.configuration.api.nodeID,
      version: context.configuration.api.version,
      uptimeSeconds: Int((ContinuousClock.now - context.core.started).components.seconds),
      connections: Dictionary(uniqueKeysWithValues: transports.map { ($0, 0) }), members: counts.members,
      rooms: counts.rooms, messagesPerSecond: 0, deliveriesPerSecond: 0, lagP50Ms: 0, lagP99Ms: 0,
      heapBytes: 0,
      residentBytes: nil, roomRates: [:])
  }

  /// Every live node's latest sample, `sample` (this node's) first, then the others (under
  /// `--redis`) by node id; `done` runs on `context`'s loop.
  static func nodes(
    _ context: LoopContext, sample: ServerSample, done: @escaping @Sendable ([ServerSample]) -> Void
  ) {
    let own = sample.node
    context.core.nodeSamples(on: context.loop) { samples in
      done([sample] + samples.filter { $0.node != own })
    }
  }

  /// The `history` event: this node's last points, oldest first.
  static func historyEvent(_ context: LoopContext) -> [UInt8] {
    let points = context.core.sampler.history().suffix(ServerSampler.capacity).map(point)
    return event("history", .object(["interval": .number(1), "points": .array(Array(points))]))
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
    _ context: LoopContext, sample: ServerSample, rooms: [String: UInt64?], bare: Bool,
    done: @escaping @Sendable (Built) -> Void
  ) {
    let loop = context.loop
    let bound = LoopBound(context, on: loop)
    nodes(context, sample: sample) { nodes in
      ServerAPI.clusterRooms(bound.value) { rows in
        let context = bound.value
        let common = commonFields(nodes: nodes, rows: rows)
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

  /// What every snapshot of a tick shares: this node's point, the nodes, connections over
  /// every node, and the rooms (their rates where they are open here).
  private static func commonFields(nodes: [ServerSample], rows: [ServerAPI.RoomRow]) -> [String: JSONValue] {
    var connections = Dictionary(uniqueKeysWithValues: transports.map { ($0, 0) })
    for node in nodes {
      for (transport, count) in node.connections where connections[transport] != nil {
        connections[transport, default: 0] += count
      }
    }
    let me = nodes[0]
    let rooms = rows.prefix(maxRooms).map { row -> JSONValue in
      .object([
        "room": .string(row.room), "members": .number(Double(row.members)),
        "messagesPerSecond": me.roomRates[row.room].map { .number($0) } ?? .null,
        "lastId": row.lastID.map { .number(Double($0)) } ?? .null,
      ])
    }
    return [
      "time": .number(Double(me.time)), "node": .string(me.node), "point": point(me),
      "nodes": .array(nodes.enumerated().map { node($1, isSelf: $0 == 0) }),
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
      hub.memberAddresses(room: room) { addresses in
        // Back on this loop: the history read below answers on its shard.
        loop.execute {
          hub.history(room: room, after: after ?? 0, shard: shard) { result in
            let messages = (try? result.get()) ?? []
            let shown = after == nil ? Array(messages.suffix(firstMessages)) : messages
            let last = shown.last?.id ?? after ?? 0
            let members = local.map { member($0, addresses) } + remote.map { member($0, [:]) }
            let part = JSONValue.object([
              "room": .string(room), "members": .array(members),
              "messages": .array(shown.map(ServerAPI.message)),
            ])
            let answer = LoopBound(done, on: loop)
            answer.value(part, last)
          }
        }
      }
    }
  }

  /// A member as the stream shows it: the server API's presence fields and its address
  /// (`IP:PORT` for this node's members, `null` for other nodes' or one that has none).
  private static func member(_ member: JSONValue, _ addresses: [String: String]) -> JSONValue {
    guard var fields = member.objectValue else { return member }
    fields["address"] = fields["name"]?.stringValue.flatMap { addresses[$0] }.map(JSONValue.string) ?? .null
    return .object(fields)
  }
}
