/// The WebSocket JSON protocol (a superset of the seed `chat-server.js`): server frames
/// are `{"type": T, "data": D}` objects written here by hand, deterministic and fast;
/// client frames are parsed by ``ClientFrame/parse(_:maxLength:)``.
public enum JSONDialect {
  /// The frame text for `event`, or `nil` when the JSON protocol does not show it.
  public static func encode(_ event: ChatEvent) -> String? {
    switch event {
    case .message(let m, _):
      return #"{"type":"message","data":"# + object(m) + "}"
    case .presence(let p, _):
      var s = #"{"type":"presence","data":{"event":"#
      switch p.kind {
      case .join: s += #""join""#
      case .leave: s += #""leave""#
      case .rename(let old): s += #""rename","previous":"# + quote(old)
      }
      s += #","author":"# + quote(p.author) + #","room":"# + quote(p.room)
      s += #","members":\#(p.members),"color":"# + quote(p.color) + "}}"
      return s
    case .binary:
      return nil
    case .shutdown(let reason):
      return error(code: "going_away", message: reason)
    case .epochChanged(_, let epoch):
      // An empty history of the new epoch: the client starts its ids over.
      return history([], epoch: epoch, recovered: false)
    }
  }

  /// `{"type":"history","data":[…],"epoch":E,"recovered":R}`.
  public static func history(_ messages: [ChatMessage], epoch: String, recovered: Bool) -> String {
    var s = #"{"type":"history","data":["#
    s.reserveCapacity(64 + messages.count * 120)
    for (i, m) in messages.enumerated() {
      if i > 0 { s += "," }
      s += object(m)
    }
    s += #"],"epoch":"# + quote(epoch) + #","recovered":\#(recovered)}"#
    return s
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

  /// `{"type":"ack","data":{"ref":R,"id":N}}`; `ref` is the client's JSON value, verbatim.
  public static func ack(ref: String, id: UInt64) -> String {
    #"{"type":"ack","data":{"ref":"# + ref + #","id":\#(id)}}"#
  }

  /// `{"type":"error","data":{"code":C,"message":M}}`, with `"ref":R` (already JSON, as in
  /// ``ack(ref:id:)``) when the error answers a message that carried one.
  public static func error(code: String, message: String, ref: String? = nil) -> String {
    let refField = ref.map { #","ref":"# + $0 } ?? ""
    return #"{"type":"error","data":{"code":"# + quote(code) + #","message":"# + quote(message) + refField + "}}"
  }

  /// A message as a JSON object.
  public static func object(_ m: ChatMessage) -> String {
    var s = #"{"id":\#(m.id),"room":"# + quote(m.room) + #","time":\#(m.time),"text":"# + quote(m.text)
    s += #","author":"# + quote(m.author) + #","color":"# + quote(m.color)
    if m.isAction { s += #","action":true"# }
    return s + "}"
  }

  /// `s` as a JSON string literal.
  public static func quote(_ s: String) -> String {
    var out = "\""
    out.reserveCapacity(s.utf8.count + 2)
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case "\u{2028}": out += "\\u2028"
      case "\u{2029}": out += "\\u2029"
      default:
        if scalar.value < 0x20 {
          let hex = String(scalar.value, radix: 16)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }
}
