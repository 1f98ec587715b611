import Foundation
import SwitchboardWire

/// The client side of the chat dialects, as pure functions: what a server frame or line
/// means, and the bytes a message becomes. No I/O, no state.
enum ChatWire {
  /// One decoded frame, line or datagram from the server.
  enum Inbound: Sendable, Equatable {
    case history([ChatClient.Message], epoch: String?, recovered: Bool)
    /// A `history` frame marked `"requested":true`: (part of) the answer to a `history`
    /// request, `more` when another part follows.
    case recent([ChatClient.Message], more: Bool)
    /// A line of the line dialect's answer to `/history` or `/since`: `[ID] NAME: TEXT` or
    /// `[ID] * NAME ACTION`.
    case historyLine(ChatClient.Message)
    case message(ChatClient.Message)
    case presence(ChatClient.Presence)
    case ack(ref: String, id: UInt64)
    case color(String)
    /// A WebSocket `name` frame: the member's name as the server has it.
    case name(String)
    /// A WebSocket `error` frame.
    case serverError(code: String, message: String)
    /// An error frame answering the message sent with `ref`.
    case rejected(ref: String, code: String, message: String)
    /// A `* …` line that is not presence.
    case notice(String)
    /// A `! …` line.
    case errorLine(String)
    /// The UDP `Server received: …` echo (the datagram's text).
    case echo(String)
    /// Who is in a room: a JSON `members` frame, or the line dialect's `* in ROOM (N): …`
    /// (the answer to `/who`).
    case members(room: String, names: [String])
    /// Which rooms have members: a JSON `rooms` frame, or the line dialect's
    /// `* rooms: NAME (K), …` (the answer to `/rooms`).
    case rooms([ChatClient.RoomSummary])
    /// A `features` frame: what the server speaks and what this connection gets.
    case features(ChatClient.ServerFeatures)
    /// A `typing` frame: `author` started (`active`) or stopped typing in `room`.
    case typing(room: String, author: String, active: Bool)
    /// Nothing a client shows (an unknown frame type, an empty line).
    case ignored
  }

  // MARK: WebSocket JSON

  /// Decodes one JSON protocol text frame. `room` is the room to report when a message
  /// names none; `me` decides ``ChatClient/Message/isMine``.
  static func decodeJSON(_ text: String, room: String, me: String) -> Inbound {
    guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)),
      let frame = object as? [String: Any], let type = frame["type"] as? String
    else { return .ignored }
    switch type {
    case "message":
      guard let data = frame["data"] as? [String: Any], let m = message(data, room: room, me: me) else { return .ignored }
      return .message(m)
    case "history":
      let items = frame["data"] as? [Any] ?? []
      let messages = items.compactMap { ($0 as? [String: Any]).flatMap { message($0, room: room, me: me) } }
      if frame["requested"] as? Bool == true { return .recent(messages, more: frame["more"] as? Bool ?? false) }
      return .history(messages, epoch: frame["epoch"] as? String, recovered: (frame["recovered"] as? Bool) ?? true)
    case "presence":
      guard let data = frame["data"] as? [String: Any], let author = data["author"] as? String else { return .ignored }
      let kind: ChatClient.Presence.Kind
      switch data["event"] as? String {
      case "join": kind = .join
      case "leave": kind = .leave
      case "rename": kind = .rename(previous: data["previous"] as? String ?? "")
      default: return .ignored
      }
      return .presence(
        ChatClient.Presence(
          kind: kind, author: author, room: data["room"] as? String, members: (data["members"] as? NSNumber)?.intValue))
    case "ack":
      guard let data = frame["data"] as? [String: Any], let id = (data["id"] as? NSNumber)?.uint64Value else {
        return .ignored
      }
      let ref: String
      if let s = data["ref"] as? String { ref = s } else if let n = data["ref"] as? NSNumber { ref = n.stringValue } else {
        return .ignored
      }
      return .ack(ref: ref, id: id)
    case "color":
      return .color(frame["data"] as? String ?? "")
    case "name":
      guard let name = frame["data"] as? String, !name.isEmpty else { return .ignored }
      return .name(name)
    case "members":
      guard let data = frame["data"] as? [String: Any], let names = data["names"] as? [Any] else { return .ignored }
      return .members(room: data["room"] as? String ?? room, names: names.compactMap { $0 as? String })
    case "rooms":
      guard let items = frame["data"] as? [Any] else { return .ignored }
      return .rooms(
        items.compactMap { item in
          guard let entry = item as? [String: Any], let name = entry["name"] as? String else { return nil }
          return ChatClient.RoomSummary(name: name, members: (entry["members"] as? NSNumber)?.intValue ?? 0)
        })
    case "features":
      return features(frame["data"])
    case "typing":
      return typing(frame["data"], room: room)
    case "error":
      let data = frame["data"] as? [String: Any] ?? [:]
      let code = data["code"] as? String ?? ""
      let message = data["message"] as? String ?? ""
      // An error that answers a message with a ref (a publish that got no id: the broker
      // was unreachable) names the ref, so the send waiting for it can fail.
      if let s = data["ref"] as? String { return .rejected(ref: s, code: code, message: message) }
      if let n = data["ref"] as? NSNumber { return .rejected(ref: n.stringValue, code: code, message: message) }
      return .serverError(code: code, message: message)
    default:
      return .ignored
    }
  }

  private static func message(_ data: [String: Any], room: String, me: String) -> ChatClient.Message? {
    guard let text = data["text"] as? String else { return nil }
    let author = data["author"] as? String ?? ""
    let time = (data["time"] as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue / 1000) }
    return ChatClient.Message(
      id: (data["id"] as? NSNumber)?.uint64Value, room: data["room"] as? String ?? room, time: time, author: author,
      text: text, isMine: author == me, isAction: data["action"] as? Bool ?? false, color: data["color"] as? String)
  }

  /// `{"type":"message","data":{"text":T,"ref":R}}`, with `"action":true` for a `/me`.
  static func messageFrame(text: String, ref: String, isAction: Bool = false) -> String {
    #"{"type":"message","data":{"text":"# + quote(text) + #","ref":"# + quote(ref) + (isAction ? #","action":true}}"# : "}}")
  }

  /// The line that sends the action `text`: `/me TEXT`, one line (a line break in it would
  /// end the command and send the rest as a message; it is a space instead).
  static func actionLine(_ text: String) -> String {
    "/me " + String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : $0 }))
  }

  /// `s` as a JSON string literal (the server's own quoting, so both sides agree).
  static func quote(_ s: String) -> String { JSONDialect.quote(s) }

  // MARK: Line and datagram dialect

  /// Decodes one line (TCP) or datagram (UDP, trailing newline already removed).
  ///
  /// The line is read as it came (escaped) and each name and text in it is then unescaped
  /// (``LineEscape/unescape(_:)``), so an app gets the exact text. What a member sent can
  /// never read as a notice, an error or another author's line: the server escapes every
  /// line break in it and admits no name that could (docs/PROTOCOLS.md, "Text inside a
  /// line"), so a line that starts `* ` or `! ` is the server's or an action's.
  static func decodeLine(_ line: String, room: String, me: String) -> Inbound {
    if line.isEmpty { return .ignored }
    // The seed's echo of this client's own datagram, byte for byte (never escaped).
    if line.hasPrefix("Server received: ") { return .echo(String(line.dropFirst("Server received: ".count))) }
    if line.hasPrefix("Server received:") { return .echo(String(line.dropFirst("Server received:".count))) }
    // Prefixes and the author's end are found in the UTF-8: a `Character` would join the
    // space after `*` or `:` with a combining mark that follows it.
    if LineDialect.starts(line, with: "! ") { return .errorLine(LineEscape.unescape(LineDialect.afterPrefix(line, 2))) }
    if LineDialect.starts(line, with: "* ") {
      let body = LineDialect.afterPrefix(line, 2)
      if body.hasSuffix(" has joined") {
        return .presence(
          .init(kind: .join, author: LineEscape.unescape(body.dropLast(" has joined".count)), room: room, members: nil))
      }
      if body.hasSuffix(" has left") {
        return .presence(
          .init(kind: .leave, author: LineEscape.unescape(body.dropLast(" has left".count)), room: room, members: nil))
      }
      if let members = members(inReply: String(body)) { return members }
      if let rooms = rooms(inReply: String(body)) { return .rooms(rooms) }
      if let r = body.range(of: " is now "), !body.hasPrefix("you ") {
        return .presence(
          .init(
            kind: .rename(previous: LineEscape.unescape(body[..<r.lowerBound])),
            author: LineEscape.unescape(body[r.upperBound...]), room: room, members: nil))
      }
      return .notice(LineEscape.unescape(line))
    }
    if let historyLine = historyLine(line, room: room, me: me) { return .historyLine(historyLine) }
    if let (rawAuthor, text) = LineDialect.splitMessage(Substring(line)) {
      let author = LineEscape.unescape(rawAuthor)
      return .message(
        ChatClient.Message(room: room, author: author, text: LineEscape.unescape(text), isMine: author == me))
    }
    return .message(ChatClient.Message(room: room, author: "", text: LineEscape.unescape(line)))
  }

  /// A history line, `[ID] NAME: TEXT` or `[ID] * NAME ACTION` (``LineDialect/formatHistory(_:)``),
  /// as a message with its id; `nil` for any other line. No name starts with `[`
  /// (docs/PROTOCOLS.md, "Text inside a line"), so no message line reads as one.
  static func historyLine(_ line: String, room: String, me: String) -> ChatClient.Message? {
    guard LineDialect.starts(line, with: "["), let close = line.utf8.firstIndex(of: UInt8(ascii: "]")),
      let id = UInt64(line[line.index(after: line.startIndex)..<close]),
      line[close...].utf8.dropFirst().first == UInt8(ascii: " ")
    else { return nil }
    let rest = line[line.utf8.index(close, offsetBy: 2)...]
    if LineDialect.starts(rest, with: "* ") {
      // `* NAME ACTION`: a name may hold spaces, so where it ends cannot be told; the
      // action is kept whole, as the live `* …` line is shown.
      return ChatClient.Message(
        id: id, room: room, author: "", text: LineEscape.unescape(LineDialect.afterPrefix(rest, 2)), isAction: true)
    }
    guard let (rawAuthor, text) = LineDialect.splitMessage(rest) else {
      return ChatClient.Message(id: id, room: room, author: "", text: LineEscape.unescape(rest))
    }
    let author = LineEscape.unescape(rawAuthor)
    return ChatClient.Message(id: id, room: room, author: author, text: LineEscape.unescape(text), isMine: author == me)
  }

  /// Whether `line` (a notice, `* …`) ends the line dialect's answer to `/history`: `* end
  /// of history …`, `* more history after id …` or `* no kept messages in ROOM`.
  static func endsHistory(_ line: String) -> Bool {
    line.hasPrefix("* end of history (") || line.hasPrefix("* more history after id ")
      || line.hasPrefix("* no kept messages in ")
  }

  /// The answer to `/who` without its `* `: `in ROOM (N): NAME, NAME` (or `in ROOM (N)`), each name escaped
  /// (``LineEscape``) and the list joined with `, ` (a name that holds `, ` reads as two).
  /// `nil` for any other notice.
  static func members(inReply body: String) -> Inbound? {
    guard body.hasPrefix("in ") else { return nil }
    let rest = body.dropFirst(3)
    // A room name has no spaces (letters, digits, - _ .).
    guard let space = rest.firstIndex(of: " ") else { return nil }
    let room = rest[..<space]
    let afterRoom = rest[space...]
    guard afterRoom.hasPrefix(" (") else { return nil }
    let count = afterRoom.dropFirst(2).prefix { $0.isASCII && $0.isNumber }
    let tail = afterRoom.dropFirst(2 + count.count)
    guard !room.isEmpty, !count.isEmpty, tail == ")" || tail.hasPrefix("):") else { return nil }
    let list = tail.dropFirst(2).drop { $0 == " " }
    let names = list.isEmpty ? [] : splitList(list).map(LineEscape.unescape)
    return .members(room: String(room), names: names)
  }

  /// The rooms in the answer to `/rooms` without its `* `: `rooms: NAME (K), NAME (K)`;
  /// `nil` for any other notice.
  static func rooms(inReply body: String) -> [ChatClient.RoomSummary]? {
    guard body.hasPrefix("rooms:") else { return nil }
    let list = body.dropFirst("rooms:".count).drop { $0 == " " }
    if list.isEmpty { return [] }
    var rooms: [ChatClient.RoomSummary] = []
    for entry in splitList(list) {
      guard entry.hasSuffix(")"), let open = entry.lastIndex(of: "("), open > entry.startIndex,
        let members = Int(entry[entry.index(after: open)..<entry.index(before: entry.endIndex)])
      else { return nil }
      let name = entry[..<open].dropLast()
      rooms.append(ChatClient.RoomSummary(name: LineEscape.unescape(name), members: members))
    }
    return rooms
  }

  /// `list` cut at every `, `, found in the UTF-8 (as a `Character`, the space would join a
  /// combining mark that starts the next name).
  private static func splitList(_ list: Substring) -> [Substring] {
    var parts: [Substring] = []
    var start = list.utf8.startIndex
    var i = start
    while i != list.utf8.endIndex {
      let next = list.utf8.index(after: i)
      if list.utf8[i] == UInt8(ascii: ","), next != list.utf8.endIndex, list.utf8[next] == UInt8(ascii: " ") {
        parts.append(Substring(list.utf8[start..<i]))
        start = list.utf8.index(after: next)
        i = start
      } else {
        i = next
      }
    }
    parts.append(Substring(list.utf8[start...]))
    return parts
  }

  /// The name in a line-dialect `* you are now NAME` notice (the answer to `/nick`, and to
  /// `iam:` when the name was taken and the server gave `NAME (2)`); `nil` for other lines,
  /// the `/join` answer `* you are now in ROOM (N members)` included.
  static func confirmedName(in line: String) -> String? {
    let prefix = "* you are now "
    guard line.hasPrefix(prefix) else { return nil }
    let name = line.dropFirst(prefix.count)
    if name.hasPrefix("in "), name.hasSuffix(" member)") || name.hasSuffix(" members)") { return nil }
    return name.isEmpty ? nil : String(name)
  }

  /// The line that sends `text` as one message on the line dialect, without its
  /// terminator: `msg:TEXT`, or, when `text` holds a line break or another character the
  /// line escape rule escapes (``LineEscape``), `emsg:` and the escaped text, which the
  /// server reads back exactly. So a text is one message on every transport (the dialect
  /// ends a line at LF, so a raw break would cut it in two).
  static func lineMessages(_ text: String) -> [String] {
    let escaped = LineEscape.escape(text)
    return [escaped == text ? "msg:" + text : "emsg:" + escaped]
  }
}
