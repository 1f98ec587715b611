import Foundation

/// One text frame from a WebSocket client of the JSON protocol.
public enum ClientFrame: Equatable, Sendable {
  /// Not a JSON object: the name if none is set yet, else a message (seed behaviour).
  case plain(String)
  /// `{"type":"message","data":{"text":T,"ref":R}}` (or `"data":"T"`); `ref` is kept as
  /// its JSON text so the `ack` can echo it exactly.
  case message(text: String, ref: String?)
  /// `{"type":"join","data":{"name":N,"room":R,"since":K,"epoch":E}}`, each field optional.
  case join(name: String?, room: String?, since: UInt64?, epoch: String? = nil)
  /// A JSON object the protocol cannot use: answered with an `error` frame, connection stays.
  case invalid(code: String, message: String)

  /// Parses a text frame. Objects larger than `maxLength` bytes are rejected.
  public static func parse(_ text: String, maxLength: Int = 1 << 20) -> ClientFrame {
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
        guard let s = raw as? String else { return .invalid(code: "invalid_data", message: "data.name must be a string") }
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
        guard let n = raw as? NSNumber, !isBoolean(n), n.doubleValue >= 0, n.doubleValue == n.doubleValue.rounded(),
          n.doubleValue < 1.8e19
        else { return .invalid(code: "invalid_data", message: "data.since must be a non-negative integer") }
        since = n.uint64Value
      }
      var epoch: String? = nil
      if let raw = data["epoch"], !(raw is NSNull) {
        guard let s = raw as? String else { return .invalid(code: "invalid_data", message: "data.epoch must be a string") }
        epoch = s
      }
      return .join(name: name, room: room, since: since, epoch: epoch)
    default:
      return .invalid(code: "unknown_type", message: "unknown type \(JSONDialect.quote(String(type.prefix(64))))")
    }
  }

  /// JSON `true`/`false` arrive as NSNumber too; on Linux `is Bool` also matches 0 and 1.
  private static func isBoolean(_ n: NSNumber) -> Bool {
    String(cString: n.objCType) == "c"
  }

  private static func encodeScalar(_ value: Any) -> String? {
    if let s = value as? String { return JSONDialect.quote(s) }
    if let n = value as? NSNumber, !isBoolean(n) {
      let d = n.doubleValue
      if d == d.rounded() && abs(d) < 1e15 { return String(Int64(d)) }
      return d.isFinite ? String(d) : nil
    }
    return nil
  }
}
