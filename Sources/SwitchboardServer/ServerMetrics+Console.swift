import SwitchboardIO
import Synchronization

/// The admin console's figures in `/metrics`: connections by transport, deliveries, resident
/// memory and the busiest rooms (docs/OPERATIONS.md, "Metrics").
extension ServerMetrics {
  /// A room among the busiest, as `/metrics` labels it.
  struct BusyRoom: Equatable, Sendable {
    var name: String
    var messagesPerSecond: Double
    var members: Int
  }

  /// What `/metrics` reads from outside the counters: the hub's deliveries and the sampler's
  /// busiest rooms (ServerCore sets it once the hub exists).
  struct ConsoleSource: Sendable {
    var deliveries: @Sendable () -> Int
    var busiestRooms: @Sendable () -> [BusyRoom]
  }

  /// Rooms in `switchboard_room_*`: a bounded label set however many rooms there are.
  static let busiestRoomCount = 10

  /// The `limit` rooms with the highest rate, ties by members then by name, leaving out
  /// those with neither a rate nor members.
  static func busiest(_ rooms: [BusyRoom], limit: Int = busiestRoomCount) -> [BusyRoom] {
    rooms.filter { $0.messagesPerSecond > 0 || $0.members > 0 }
      .sorted {
        ($0.messagesPerSecond, $0.members, $1.name) > ($1.messagesPerSecond, $1.members, $0.name)
      }
      .prefix(limit).map { $0 }
  }

  /// `value` as a label value in the Prometheus text format: backslash, double quote and
  /// line feed escaped (room names cannot hold them today; a label must not break a line
  /// if they ever do).
  static func labelValue(_ value: String) -> String {
    var escaped = ""
    escaped.reserveCapacity(value.utf8.count)
    for character in value.unicodeScalars {
      switch character {
      case "\\": escaped += "\\\\"
      case "\"": escaped += "\\\""
      case "\n": escaped += "\\n"
      default: escaped.unicodeScalars.append(character)
      }
    }
    return escaped
  }

  /// The console's lines: `switchboard_connections_open{transport=…}`,
  /// `switchboard_deliveries_total`, `switchboard_resident_bytes` (where known) and the
  /// busiest rooms' `switchboard_room_messages_per_second` and `switchboard_room_members`.
  func consoleText() -> String {
    let source = consoleSource.withLock { $0 }
    var text = "# TYPE switchboard_connections_open gauge\n"
    let open = [
      ("tcp", connectionsOpen.tcp.load(ordering: .relaxed)),
      ("tls", connectionsOpen.tls.load(ordering: .relaxed)),
      ("udp", udp.members.load(ordering: .relaxed)), ("ws", connectionsOpen.ws.load(ordering: .relaxed)),
      ("wss", connectionsOpen.wss.load(ordering: .relaxed)),
    ]
    for (transport, count) in open {
      text += "switchboard_connections_open{transport=\"\(transport)\"} \(count)\n"
    }
    text += "# TYPE switchboard_deliveries_total counter\n"
    text += "switchboard_deliveries_total \(source?.deliveries() ?? 0)\n"
    if let resident = ProcessMemory.residentBytes {
      text += "# TYPE switchboard_resident_bytes gauge\nswitchboard_resident_bytes \(resident)\n"
    }
    let rooms = source?.busiestRooms() ?? []
    var rates = "# TYPE switchboard_room_messages_per_second gauge\n"
    var members = "# TYPE switchboard_room_members gauge\n"
    for room in rooms {
      let label = "{room=\"\(Self.labelValue(room.name))\"}"
      rates += "switchboard_room_messages_per_second\(label) \(room.messagesPerSecond)\n"
      members += "switchboard_room_members\(label) \(room.members)\n"
    }
    return text + rates + members
  }
}
