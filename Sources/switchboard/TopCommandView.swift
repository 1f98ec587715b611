import Foundation
import SwitchboardAuth

/// What `switchboard top` shows, read from the console's `snapshot` events (docs/OPERATIONS.md,
/// "The admin console"), and drawn as lines of a given width. Pure: no terminal, no I/O.
///
/// Every text the server sends (node ids, room and member names, message texts) is shown
/// with its control characters replaced, so a message cannot move the cursor or recolour
/// the screen.
struct TopView {
  /// One node's line.
  struct Node {
    var node = "", version = "", uptimeSeconds = 0, connections = 0, members = 0, rooms = 0
    var messagesPerSecond = 0.0, deliveriesPerSecond = 0.0, lagP50Ms = 0.0, lagP99Ms = 0.0
    var heapBytes = 0
    var isSelf = false
  }

  /// One room's line.
  struct Room {
    var room = "", members = 0
    var messagesPerSecond: Double?
    var lastID: Int?
  }

  /// A member of the followed room.
  struct Member {
    var name = "", transport = "", address = "", since = "", node = ""
  }

  /// A message of the followed room.
  struct Message: Equatable {
    var id = 0, author = "", text = "", time = ""
    var isAction = false
  }

  /// The newest snapshot, as read.
  struct Snapshot {
    var time: Int64 = 0
    var node = ""
    var messagesPerSecond = 0.0, deliveriesPerSecond = 0.0, lagP50Ms = 0.0, lagP99Ms = 0.0
    var connectionCount = 0
    var heapBytes = 0
    var residentBytes: Int?
    var nodes: [Node] = []
    var transports: [(String, Int)] = []
    var rooms: [Room] = []
    var followed: String?
    var members: [Member] = []
    var newMessages: [Message] = []
  }

  /// The most messages of the followed room kept for the screen.
  static let keptMessages = 50

  /// The room followed (`--room`), if any.
  let followedRoom: String?
  private(set) var snapshot: Snapshot?
  /// The followed room's last messages, oldest first.
  private(set) var messages: [Message] = []

  init(room: String?) {
    followedRoom = room
  }

  /// Takes a `snapshot` event's data. Returns false when it is not a snapshot object.
  mutating func take(snapshotJSON data: String) -> Bool {
    guard let value = try? JSONValue(parsing: Array(data.utf8), maxDepth: 8), let object = value.objectValue,
      var snapshot = Self.snapshot(object)
    else { return false }
    // A server that gives no room rate still gives each room's last id: its growth since
    // the previous snapshot is the rate.
    if let previous = self.snapshot, snapshot.time > previous.time {
      var before: [String: Int] = [:]
      for room in previous.rooms { before[room.room] = room.lastID }
      let seconds = Double(snapshot.time - previous.time) / 1000
      for i in snapshot.rooms.indices where snapshot.rooms[i].messagesPerSecond == nil {
        if let now = snapshot.rooms[i].lastID, let then = before[snapshot.rooms[i].room], now >= then {
          snapshot.rooms[i].messagesPerSecond = Double(now - then) / seconds
        }
      }
    }
    self.snapshot = snapshot
    messages.append(contentsOf: snapshot.newMessages)
    if messages.count > Self.keptMessages { messages.removeFirst(messages.count - Self.keptMessages) }
    return true
  }

  // MARK: Reading

  private static func snapshot(_ o: [String: JSONValue]) -> Snapshot? {
    guard let point = o["point"]?.objectValue else { return nil }
    var s = Snapshot()
    s.time = Int64(o["time"]?.numberValue ?? 0)
    s.node = text(o["node"])
    s.messagesPerSecond = point["messagesPerSecond"]?.numberValue ?? 0
    s.deliveriesPerSecond = point["deliveriesPerSecond"]?.numberValue ?? 0
    s.lagP50Ms = point["lagP50Ms"]?.numberValue ?? 0
    s.lagP99Ms = point["lagP99Ms"]?.numberValue ?? 0
    s.heapBytes = int(point["heapBytes"]) ?? 0
    s.residentBytes = int(point["residentBytes"])
    s.connectionCount = int(point["connections"]) ?? 0
    s.nodes = (o["nodes"]?.arrayValue ?? []).compactMap(\.objectValue).map { n in
      Node(
        node: text(n["node"]), version: text(n["version"]), uptimeSeconds: int(n["uptimeSeconds"]) ?? 0,
        connections: int(n["connections"]) ?? 0, members: int(n["members"]) ?? 0, rooms: int(n["rooms"]) ?? 0,
        messagesPerSecond: n["messagesPerSecond"]?.numberValue ?? 0,
        deliveriesPerSecond: n["deliveriesPerSecond"]?.numberValue ?? 0,
        lagP50Ms: n["lagP50Ms"]?.numberValue ?? 0,
        lagP99Ms: n["lagP99Ms"]?.numberValue ?? 0, heapBytes: int(n["heapBytes"]) ?? 0,
        isSelf: n["self"] == .bool(true))
    }
    let connections = o["connections"]?.objectValue ?? [:]
    s.transports = ["tcp", "tls", "udp", "ws", "wss"].map { ($0, int(connections[$0]) ?? 0) }
    s.rooms = (o["rooms"]?.arrayValue ?? []).compactMap(\.objectValue).map { r in
      Room(
        room: text(r["room"]), members: int(r["members"]) ?? 0,
        messagesPerSecond: r["messagesPerSecond"]?.numberValue,
        lastID: int(r["lastId"]))
    }
    if let room = o["room"]?.objectValue {
      s.followed = text(room["room"])
      s.members = (room["members"]?.arrayValue ?? []).compactMap(\.objectValue).map { m in
        Member(
          name: text(m["name"]), transport: text(m["transport"], or: "-"),
          address: text(m["address"], or: "-"),
          since: clock(text(m["since"])), node: text(m["node"]))
      }
      s.newMessages = (room["messages"]?.arrayValue ?? []).compactMap(\.objectValue).map { m in
        Message(
          id: int(m["id"]) ?? 0, author: text(m["author"]), text: text(m["text"]),
          time: clock(text(m["time"])),
          isAction: m["action"] == .bool(true))
      }
    }
    return s
  }

  private static func int(_ value: JSONValue?) -> Int? {
    guard let n = value?.numberValue, n.isFinite, abs(n) < 9e15 else { return nil }
    return Int(n)
  }

  /// A string from the server with its control characters (C0, DEL, C1) as `?`.
  private static func text(_ value: JSONValue?, or fallback: String = "") -> String {
    guard let s = value?.stringValue else { return fallback }
    return String(
      String.UnicodeScalarView(
        s.unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : $0 }))
  }

  /// `HH:MM:SS` of an RFC 3339 time (UTC as the server wrote it), or `-`.
  private static func clock(_ time: String) -> String {
    guard let t = time.firstIndex(of: "T") else { return time.isEmpty ? "-" : time }
    return String(time[time.index(after: t)...].prefix(8))
  }

  // MARK: Drawing

  /// How the screen is drawn: its size (`rows` nil: as many lines as there are, for plain
  /// output, with lists cut at ``plainListLength``) and whether to use colours.
  struct Layout {
    var columns: Int
    var rows: Int?
    var colors: Bool
  }

  /// The longest list (rooms, members) in plain output.
  static let plainListLength = 20

  /// The screen's lines, none wider than `layout.columns` (in characters).
  func lines(_ layout: Layout) -> [String] {
    guard let s = snapshot else { return ["switchboard top: waiting for the first snapshot…"] }
    var head: [String] = []
    let bold = { (t: String) in layout.colors ? "\u{1B}[1m" + t + "\u{1B}[0m" : t }
    let ownNode = s.nodes.first(where: \.isSelf) ?? s.nodes.first
    head.append(
      bold("node \(s.node)")
        + "  version \(ownNode?.version ?? "?")  up \(Self.duration(ownNode?.uptimeSeconds ?? 0))  "
        + Self.utcClock(s.time))
    let total = s.transports.reduce(0) { $0 + $1.1 }
    head.append(
      "connections \(total): " + s.transports.map { "\($0.0) \($0.1)" }.joined(separator: "  "))
    head.append(
      "messages/s \(Self.rate(s.messagesPerSecond))  deliveries/s \(Self.rate(s.deliveriesPerSecond))  "
        + "loop lag p50 \(Self.ms(s.lagP50Ms)) p99 \(Self.ms(s.lagP99Ms))  memory heap \(Self.bytes(s.heapBytes))"
        + (s.residentBytes.map { " rss \(Self.bytes($0))" } ?? ""))
    head.append("")
    head.append(bold("NODES (\(s.nodes.count))"))
    head.append(
      "  "
        + Self.row(
          ["NODE", "VERSION", "UP", "CONN", "MEMBERS", "ROOMS", "MSG/S", "DELIV/S", "LAG P99", "HEAP"],
          widths: Self.nodeWidths, right: Self.nodeNumbers))
    for n in s.nodes {
      let cells = [
        n.node, n.version, Self.duration(n.uptimeSeconds), "\(n.connections)", "\(n.members)", "\(n.rooms)",
        Self.rate(n.messagesPerSecond), Self.rate(n.deliveriesPerSecond), Self.ms(n.lagP99Ms),
        Self.bytes(n.heapBytes),
      ]
      head.append(
        (n.isSelf ? "* " : "  ") + Self.row(cells, widths: Self.nodeWidths, right: Self.nodeNumbers))
    }
    head.append("")

    // The rooms, busiest first; with a followed room, they share the rest of the screen.
    let rooms = s.rooms.sorted {
      let (a, b) = ($0.messagesPerSecond ?? 0, $1.messagesPerSecond ?? 0)
      if a != b { return a > b }
      if $0.members != $1.members { return $0.members > $1.members }
      return $0.room < $1.room
    }
    let left = layout.rows.map { max(0, $0 - head.count) }
    let roomLines: Int
    var followLines = 0
    if let left {
      followLines = followedRoom == nil ? 0 : max(0, left - min(rooms.count + 3, max(5, left / 3)))
      roomLines = max(0, left - followLines - 2)
    } else {
      roomLines = Self.plainListLength
    }
    var body = [bold("ROOMS (\(rooms.count))")]
    body.append(
      "  " + Self.row(["ROOM", "MEMBERS", "MSG/S", "LAST ID"], widths: Self.roomWidths, right: [1, 2, 3]))
    let shownRooms = rooms.prefix(rooms.count > roomLines ? max(0, roomLines - 1) : roomLines)
    for r in shownRooms {
      let cells = [
        r.room, "\(r.members)", r.messagesPerSecond.map(Self.rate) ?? "-", r.lastID.map(String.init) ?? "-",
      ]
      body.append("  " + Self.row(cells, widths: Self.roomWidths, right: [1, 2, 3]))
    }
    if shownRooms.count < rooms.count { body.append("  … \(rooms.count - shownRooms.count) more") }

    if let followed = followedRoom {
      var room: [String] = [""]
      room.append(bold("ROOM \(followed) (\(s.members.count) members)"))
      let memberRows = layout.rows == nil ? Self.plainListLength : max(1, (followLines - 4) / 2)
      room.append(
        "  " + Self.row(["NAME", "TRANSPORT", "ADDRESS", "SINCE", "NODE"], widths: Self.memberWidths))
      let shown = s.members.prefix(s.members.count > memberRows ? max(0, memberRows - 1) : memberRows)
      for m in shown {
        room.append(
          "  " + Self.row([m.name, m.transport, m.address, m.since, m.node], widths: Self.memberWidths))
      }
      if shown.count < s.members.count { room.append("  … \(s.members.count - shown.count) more") }
      room.append(bold("MESSAGES"))
      // Plain output is a log: each block shows the messages new since the one before.
      let shownMessages =
        layout.rows == nil ? s.newMessages : Array(messages.suffix(max(0, followLines - room.count)))
      for m in shownMessages {
        room.append("  \(m.time) " + (m.isAction ? "* \(m.author) \(m.text)" : "\(m.author): \(m.text)"))
      }
      body += room
    }
    let all = head + body
    let fitted = layout.rows.map { Array(all.prefix($0)) } ?? all
    return fitted.map { Self.fit($0, layout.columns) }
  }

  private static let nodeWidths = [20, 10, 8, 7, 8, 6, 9, 9, 9, 10]
  private static let nodeNumbers: Set = [2, 3, 4, 5, 6, 7, 8, 9]
  private static let roomWidths = [32, 8, 9, 9]
  private static let memberWidths = [20, 10, 22, 9, 16]

  /// Cells padded to `widths`, one space apart: the columns in `right` (numbers) aligned
  /// right, the others left; no trailing spaces.
  private static func row(_ cells: [String], widths: [Int], right: Set<Int> = []) -> String {
    let padded = zip(cells, widths).enumerated().map { index, pair in
      let (cell, width) = pair
      let cut = cell.count > width ? String(cell.prefix(width - 1)) + "…" : cell
      let pad = String(repeating: " ", count: max(0, width - cut.count))
      return right.contains(index) ? pad + cut : cut + pad
    }.joined(separator: " ")
    return String(padded.reversed().drop { $0 == " " }.reversed())
  }

  /// `line` cut to `columns` characters; escape sequences (colours) are not counted.
  private static func fit(_ line: String, _ columns: Int) -> String {
    var out = ""
    var visible = 0
    var inEscape = false
    for c in line {
      if c == "\u{1B}" { inEscape = true }
      if inEscape {
        out.append(c)
        if c.isLetter { inEscape = false }
        continue
      }
      guard visible < columns else { continue }
      out.append(c)
      visible += 1
    }
    return out
  }

  static func rate(_ x: Double) -> String { x.isFinite ? String(format: "%.1f", x) : "-" }
  static func ms(_ x: Double) -> String { x.isFinite ? String(format: "%.2f ms", x) : "-" }

  /// `12.3 MiB`, `800 KiB`, `512 B`.
  static func bytes(_ n: Int) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"]
    var value = Double(n)
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
      value /= 1024
      unit += 1
    }
    return unit == 0 ? "\(n) B" : String(format: value < 10 ? "%.1f" : "%.0f", value) + " " + units[unit]
  }

  /// `42s`, `3m05s`, `1h02m`, `2d03h`.
  static func duration(_ seconds: Int) -> String {
    let s = max(0, seconds)
    if s < 60 { return "\(s)s" }
    if s < 3600 { return String(format: "%dm%02ds", s / 60, s % 60) }
    if s < 86400 { return String(format: "%dh%02dm", s / 3600, s % 3600 / 60) }
    return String(format: "%dd%02dh", s / 86400, s % 86400 / 3600)
  }

  /// `HH:MM:SS UTC` of a time in milliseconds since the epoch.
  static func utcClock(_ ms: Int64) -> String {
    let s = Int(ms / 1000) % 86400
    return String(format: "%02d:%02d:%02d UTC", s / 3600, s % 3600 / 60, s % 60)
  }
}
