import Foundation
import SwitchboardWire

/// The JSON protocol's earlier implementations, kept as the reference the byte-level
/// encoder and the Foundation-free decoder are held to: `String` building for server
/// frames, `JSONSerialization` for client frames. Test code only.
enum JSONReference {
  /// A room's `message` frame for `m`.
  static func message(_ m: ChatMessage) -> String {
    #"{"type":"message","data":"# + object(m) + "}"
  }

  /// A `presence` frame for `p`.
  static func presence(_ p: PresenceEvent) -> String {
    var s = #"{"type":"presence","data":{"event":"#
    switch p.kind {
    case .join: s += #""join""#
    case .leave: s += #""leave""#
    case .rename(let old): s += #""rename","previous":"# + quote(old)
    }
    s += #","author":"# + quote(p.author) + #","room":"# + quote(p.room)
    s += #","members":\#(p.members),"color":"# + quote(p.color) + "}}"
    return s
  }

  /// `{"type":"history","data":[…],"epoch":E,"recovered":R}`.
  static func history(_ messages: [ChatMessage], epoch: String, recovered: Bool) -> String {
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
  static func color(_ color: String) -> String {
    #"{"type":"color","data":"# + quote(color) + "}"
  }

  /// `{"type":"name","data":N}`: the member's name as the server has it (it may differ from
  /// the one asked for: `alice (2)` when `alice` is taken in the room).
  static func name(_ name: String) -> String {
    #"{"type":"name","data":"# + quote(name) + "}"
  }

  /// `{"type":"ack","data":{"ref":R,"id":N}}`; `ref` is the client's JSON value, verbatim.
  static func ack(ref: String, id: UInt64) -> String {
    #"{"type":"ack","data":{"ref":"# + ref + #","id":\#(id)}}"#
  }

  /// `{"type":"error","data":{"code":C,"message":M}}`, with `"ref":R` (already JSON, as in
  /// ``ack(ref:id:)``) when the error answers a message that carried one.
  static func error(code: String, message: String, ref: String? = nil) -> String {
    let refField = ref.map { #","ref":"# + $0 } ?? ""
    return #"{"type":"error","data":{"code":"# + quote(code) + #","message":"# + quote(message) + refField
      + "}}"
  }

  /// A message as a JSON object.
  static func object(_ m: ChatMessage) -> String {
    var s = #"{"id":\#(m.id),"room":"# + quote(m.room) + #","time":\#(m.time),"text":"# + quote(m.text)
    s += #","author":"# + quote(m.author) + #","color":"# + quote(m.color)
    if m.isAction { s += #","action":true"# }
    return s + "}"
  }

  /// `s` as a JSON string literal.
  static func quote(_ s: String) -> String {
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

  // MARK: Client frames through JSONSerialization

  /// Parses a text frame. Objects larger than `maxLength` bytes are rejected.
  static func parse(_ text: String, maxLength: Int = 1 << 20) -> ClientFrame {
    guard let first = text.utf8.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }),
      first == UInt8(ascii: "{")
    else { return .plain(text) }
    guard text.utf8.count <= maxLength else {
      return .invalid(code: "too_large", message: "frame over \(maxLength) bytes")
    }
    guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]),
      let dict = object as? [String: Any]
    else { return .plain(text) }
    guard let type = dict["type"] as? String else {
      return .invalid(code: "invalid_type", message: "a frame needs a string \"type\"")
    }
    switch type {
    case "message":
      if let text = dict["data"] as? String { return .message(text: text, ref: nil) }
      guard let data = dict["data"] as? [String: Any], let text = data["text"] as? String else {
        return .invalid(code: "invalid_data", message: "message needs data.text (a string)")
      }
      var ref: String? = nil
      if let raw = data["ref"] {
        guard let encoded = encodeScalar(raw) else {
          return .invalid(code: "invalid_data", message: "data.ref must be a string or a number")
        }
        ref = encoded
      }
      return .message(text: text, ref: ref)
    case "join":
      let data = dict["data"] as? [String: Any] ?? [:]
      if dict["data"] != nil && !(dict["data"] is [String: Any]) {
        return .invalid(code: "invalid_data", message: "join needs data to be an object")
      }
      var name: String? = nil
      if let raw = data["name"] {
        guard let s = raw as? String else {
          return .invalid(code: "invalid_data", message: "data.name must be a string")
        }
        name = s
      }
      var room: String? = nil
      if let raw = data["room"] {
        guard let s = raw as? String, let valid = RoomName.validate(s) else {
          return .invalid(code: "invalid_data", message: "data.room must be 1-64 letters, digits, - _ .")
        }
        room = valid
      }
      var since: UInt64? = nil
      if let raw = data["since"], !(raw is NSNull) {
        guard let n = raw as? NSNumber, !isBoolean(n), n.doubleValue >= 0,
          n.doubleValue == n.doubleValue.rounded(),
          n.doubleValue < 1.8e19
        else { return .invalid(code: "invalid_data", message: "data.since must be a non-negative integer") }
        since = n.uint64Value
      }
      var epoch: String? = nil
      if let raw = data["epoch"], !(raw is NSNull) {
        guard let s = raw as? String else {
          return .invalid(code: "invalid_data", message: "data.epoch must be a string")
        }
        epoch = s
      }
      return .join(name: name, room: room, since: since, epoch: epoch)
    case "who":
      return .who
    case "rooms":
      return .rooms
    case "history":
      if let data = dict["data"], !(data is NSNull), !(data is [String: Any]) {
        return .invalid(code: "invalid_data", message: "history needs data to be an object")
      }
      guard let raw = (dict["data"] as? [String: Any])?["limit"], !(raw is NSNull) else {
        return .history(limit: HistoryRequest.defaultCount)
      }
      guard let n = raw as? NSNumber, !isBoolean(n), n.doubleValue >= 1,
        n.doubleValue == n.doubleValue.rounded(),
        n.doubleValue <= Double(HistoryRequest.maxCount)
      else {
        return .invalid(
          code: "invalid_data",
          message: "data.limit must be a whole number from 1 to \(HistoryRequest.maxCount)")
      }
      return .history(limit: n.intValue)
    case "refresh":
      guard let token = (dict["data"] as? [String: Any])?["token"] as? String, !token.isEmpty else {
        return .invalid(code: "invalid_data", message: "refresh needs data.token (a string)")
      }
      return .refresh(token: token)
    case "features":
      guard let items = dict["data"] as? [Any] else {
        return .invalid(code: "invalid_data", message: "features needs data to be an array of names")
      }
      return .features(Array(items.compactMap { $0 as? String }.filter { $0.utf8.count <= 64 }.prefix(32)))
    case "typing":
      guard let raw = (dict["data"] as? [String: Any])?["active"] as? NSNumber, isBoolean(raw) else {
        return .invalid(code: "invalid_data", message: "typing needs data.active (true or false)")
      }
      return .typing(active: raw.boolValue)
    default:
      return .invalid(
        code: "unknown_type", message: "unknown type \(JSONReference.quote(String(type.prefix(64))))")
    }
  }

  /// JSON `true`/`false` arrive as NSNumber too; on Linux `is Bool` also matches 0 and 1.
  private static func isBoolean(_ n: NSNumber) -> Bool {
    String(cString: n.objCType) == "c"
  }

  private static func encodeScalar(_ value: Any) -> String? {
    if let s = value as? String { return JSONReference.quote(s) }
    if let n = value as? NSNumber, !isBoolean(n) {
      let d = n.doubleValue
      if d == d.rounded() && abs(d) < 1e15 { return String(Int64(d)) }
      return d.isFinite ? String(d) : nil
    }
    return nil
  }
}
