/// The WebSocket JSON protocol (a superset of the seed `chat-server.js`): server frames
/// are `{"type": T, "data": D}` objects written here by hand, deterministic and fast;
/// client frames are parsed by ``ClientFrame/parse(_:maxLength:)``.
///
/// Frames are built as UTF-8 bytes (``encodedBytes(_:headerRoom:)``: one array, its capacity
/// reserved, strings escaped a run of bytes at a time); the `String` forms are those bytes.
public enum JSONDialect {
  /// A room's `message` frame for `m` as UTF-8 bytes. Nothing in it depends on the
  /// recipient, so a delivery encodes it once for every JSON member.
  ///
  /// `headerRoom` zero bytes come first, for a WebSocket header to be written in front of
  /// the payload in place (`WebSocketConnection.withServerFrame(text:payloadAt:_:)`): the
  /// frame is then built without copying the payload again.
  public static func encodedBytes(_ m: ChatMessage, headerRoom: Int = 0) -> [UInt8] {
    if let plain = plainMessageFrame(m, headerRoom: headerRoom) { return plain }
    var out: [UInt8] = []
    out.reserveCapacity(headerRoom + estimate(m) + 28)
    if headerRoom > 0 { out.append(contentsOf: repeatElement(0, count: headerRoom)) }
    appendObject(m, to: &out, opening: #"{"type":"message","data":{"id":"#, inFrame: true)
    return out
  }

  /// A `presence` frame for `p` as UTF-8 bytes, after `headerRoom` zero bytes (as in
  /// ``encodedBytes(_:headerRoom:)-(ChatMessage,_)``).
  public static func encodedBytes(_ p: PresenceEvent, headerRoom: Int = 0) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(headerRoom + p.author.utf8.count + p.room.utf8.count + p.color.utf8.count + 112)
    if headerRoom > 0 { out.append(contentsOf: repeatElement(0, count: headerRoom)) }
    switch p.kind {
    case .join: append(#"{"type":"presence","data":{"event":"join","author":""#, to: &out)
    case .leave: append(#"{"type":"presence","data":{"event":"leave","author":""#, to: &out)
    case .rename(let old):
      append(#"{"type":"presence","data":{"event":"rename","previous":""#, to: &out)
      appendEscaped(old, to: &out)
      append(#"","author":""#, to: &out)
    }
    appendEscaped(p.author, to: &out)
    append(#"","room":""#, to: &out)
    appendEscaped(p.room, to: &out)
    append(#"","members":"#, to: &out)
    appendDecimal(Int64(p.members), to: &out)
    append(#","color":""#, to: &out)
    appendEscaped(p.color, to: &out)
    append(#""}}"#, to: &out)
    return out
  }

  /// The frame a member gets when the server shuts down: an `error` frame with the code
  /// `going_away` and `reason` as its message.
  public static func goingAway(reason: String) -> String {
    error(code: "going_away", message: reason)
  }

  /// `{"type":"history","data":[…],"epoch":E,"recovered":R}`, with `"more":true` before the
  /// closing brace when `more` is set: a replay too large for one frame leaves as several
  /// `history` frames (docs/PROTOCOLS.md), every one but the last marked so.
  ///
  /// `requested`: the frame answers a `history` request (``ClientFrame/history(limit:)``) and
  /// says so with `"requested":true`: a view of recent messages, not a replay to resume from.
  public static func history(
    _ messages: some Collection<ChatMessage>, epoch: String, recovered: Bool, more: Bool = false,
    requested: Bool = false
  ) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(80 + messages.reduce(0) { $0 + estimate($1) + 1 })
    append(#"{"type":"history","data":["#, to: &out)
    for (i, m) in messages.enumerated() {
      if i > 0 { out.append(UInt8(ascii: ",")) }
      appendObject(m, to: &out)
    }
    append(#"],"epoch":"#, to: &out)
    appendQuoted(epoch, to: &out)
    append(recovered ? #","recovered":true"# : #","recovered":false"#, to: &out)
    if requested { append(#","requested":true"#, to: &out) }
    append(more ? #","more":true}"# : "}", to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// `{"type":"color","data":C}`.
  public static func color(_ color: String) -> String {
    #"{"type":"color","data":"# + quote(color) + "}"
  }

  /// `{"type":"name","data":N}`: the member's name as the server has it (it may differ from
  /// the one asked for: `alice (2)` when `alice` is taken in the room).
  public static func name(_ name: String) -> String {
    #"{"type":"name","data":"# + quote(name) + "}"
  }

  /// `{"type":"members","data":{"room":R,"names":[N,…]}}`: the answer to a `who` frame, the
  /// names in the member's room (on every node, with a broker), in the order given.
  public static func members(room: String, names: [String]) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(48 + room.utf8.count + names.reduce(0) { $0 + $1.utf8.count + 3 })
    append(#"{"type":"members","data":{"room":"#, to: &out)
    appendQuoted(room, to: &out)
    append(#","names":["#, to: &out)
    for (i, name) in names.enumerated() {
      if i > 0 { out.append(UInt8(ascii: ",")) }
      appendQuoted(name, to: &out)
    }
    append("]}}", to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// `{"type":"rooms","data":[{"name":N,"members":K},…]}`: the answer to a `rooms` frame,
  /// the rooms with members and how many, in the order given.
  public static func rooms(_ rooms: some Collection<(name: String, members: Int)>) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(32 + rooms.reduce(0) { $0 + $1.name.utf8.count + 32 })
    append(#"{"type":"rooms","data":["#, to: &out)
    for (i, room) in rooms.enumerated() {
      if i > 0 { out.append(UInt8(ascii: ",")) }
      append(#"{"name":"#, to: &out)
      appendQuoted(room.name, to: &out)
      append(#","members":"#, to: &out)
      appendDecimal(Int64(room.members), to: &out)
      out.append(UInt8(ascii: "}"))
    }
    append("]}", to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// `{"type":"ack","data":{"ref":R,"id":N}}`; `ref` is the client's JSON value, verbatim.
  public static func ack(ref: String, id: UInt64) -> String {
    #"{"type":"ack","data":{"ref":"# + ref + #","id":\#(id)}}"#
  }

  /// `{"type":"error","data":{"code":C,"message":M}}`, with `"ref":R` (already JSON, as in
  /// ``ack(ref:id:)``) when the error answers a message that carried one.
  public static func error(code: String, message: String, ref: String? = nil) -> String {
    let refField = ref.map { #","ref":"# + $0 } ?? ""
    return #"{"type":"error","data":{"code":"# + quote(code) + #","message":"# + quote(message) + refField
      + "}}"
  }

  /// A message as a JSON object.
  public static func object(_ m: ChatMessage) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(estimate(m))
    appendObject(m, to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// `s` as a JSON string literal.
  public static func quote(_ s: String) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(s.utf8.count + 2)
    appendQuoted(s, to: &out)
    return String(decoding: out, as: UTF8.self)
  }
}
