import Foundation

/// One text frame from a WebSocket client of the JSON protocol.
public enum ClientFrame: Equatable, Sendable {
  /// Not a JSON object: the name if none is set yet, else a message (seed behaviour).
  case plain(String)
  /// `{"type":"message","data":{"text":T,"ref":R}}` (or `"data":"T"`); `ref` is kept as
  /// its JSON text so the `ack` can echo it exactly.
  case message(text: String, ref: String?)
  /// `{"type":"message","data":{"text":T,"ref":R,"action":true}}`: a `/me` action, shown as
  /// `* NAME T` (the line dialect's `/me T`). A server older than it takes the frame as a
  /// message of `T`.
  case action(text: String, ref: String?)
  /// `{"type":"join","data":{"name":N,"room":R,"since":K,"epoch":E}}`, each field optional.
  case join(name: String?, room: String?, since: UInt64?, epoch: String? = nil)
  /// `{"type":"who"}` (any `data` ignored): who is in the member's room, answered with a
  /// `members` frame (``JSONDialect/members(room:names:)``), as the line dialect's `/who`.
  case who
  /// `{"type":"rooms"}` (any `data` ignored): which rooms have members, answered with a
  /// `rooms` frame (``JSONDialect/rooms(_:)``), as the line dialect's `/rooms`.
  case rooms
  /// `{"type":"history","data":{"limit":N}}` (`data` and `limit` optional: the last
  /// ``HistoryRequest/defaultCount``): the last `limit` kept messages of the member's room,
  /// answered with `history` frames marked `"requested":true`, as the line dialect's
  /// `/history N`. `limit` is a whole number from 1 to ``HistoryRequest/maxCount``.
  case history(limit: Int)
  /// `{"type":"refresh","data":{"token":T}}`: a fresh token for the connection, sent after a
  /// `token_expiring` frame (docs/SECURITY.md, "Token refresh"); answered with a
  /// `token_refreshed` frame or an `error` frame `refresh_failed`.
  case refresh(token: String)
  /// `{"type":"features","data":["typing",…]}`: the optional frames the client wants
  /// (``ProtocolFeature``; names the server does not know are ignored, so is a repeated
  /// one), answered with a `features` frame (``JSONDialect/features(enabled:)``). The list
  /// replaces the one sent before; an empty list turns every optional frame off.
  case features([String])
  /// `{"type":"typing","data":{"active":B}}`: the member starts (`true`) or stops (`false`)
  /// typing in its room; relayed to the room's members that enabled `typing`, never kept.
  case typing(active: Bool)
  /// A JSON object the protocol cannot use: answered with an `error` frame, connection stays.
  case invalid(code: String, message: String)

  /// Parses a text frame. Objects larger than `maxLength` bytes are rejected.
  ///
  /// The object is read by ``ClientFrameDecoder`` (no Foundation on this path); what it
  /// accepts and every answer below are those of the earlier `JSONSerialization`-based
  /// parser, which the tests keep as the reference.
  public static func parse(_ text: String, maxLength: Int = 1 << 20) -> ClientFrame {
    let withinLimit = text.utf8.count <= maxLength
    // The canonical message first: it starts with `{`, so it is an object, and the search
    // for the first byte that is not a space is not needed for it.
    if withinLimit, let message = canonicalMessage(text) { return message }
    guard let first = text.utf8.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }),
      first == UInt8(ascii: "{")
    else { return .plain(text) }
    guard withinLimit else {
      return .invalid(code: "too_large", message: "frame over \(maxLength) bytes")
    }
    return decoded(text)
  }

  /// The frame nearly every client sends, `{"type":"message","data":{"text":"T"}}` or with
  /// `,"ref":"R"` after the text, exactly so written (no spaces, these keys in this order)
  /// and with nothing in `T` or `R` to unescape, read straight from its bytes; `nil` for
  /// any other text, which ``decoded(_:)`` reads. Both give the same answer for every
  /// text this one takes (`JSONFrameEquivalenceTests` holds them, and the Foundation
  /// reference, together).
  package static func canonicalMessage(_ text: String) -> ClientFrame? {
    var text = text
    return text.withUTF8 { bytes -> ClientFrame? in
      guard let parts = canonicalMessageParts(bytes) else { return nil }
      let body = String(decoding: UnsafeBufferPointer(rebasing: bytes[parts.text]), as: UTF8.self)
      return .message(
        text: body,
        ref: parts.ref.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) })
    }
  }

  /// Where ``canonicalMessage(_:)`` finds the text and the ref in the frame's UTF-8: the
  /// text's bytes (between its quotes, nothing in them to unescape) and the ref's JSON
  /// text (with its quotes), or `nil` for a frame it does not take. For a server that
  /// publishes the text straight from the bytes it received (the bytes of valid UTF-8
  /// cut at quotes are valid UTF-8). `textNeedsNoJSONEscape`: the text has no U+2028 or
  /// U+2029 either (which a client may send raw and the JSON protocol's frames escape), so
  /// it goes into a JSON string as it is (``ChatMessage/textNeedsNoJSONEscape``).
  package static func canonicalMessageParts(_ bytes: UnsafeBufferPointer<UInt8>) -> (
    text: Range<Int>, ref: Range<Int>?, textNeedsNoJSONEscape: Bool
  )? {
    let opening: StaticString = #"{"type":"message","data":{"text":""#
    let start = opening.utf8CodeUnitCount
    guard let base = bytes.baseAddress, bytes.count >= start + 3, startsWith(base, opening) else {
      return nil
    }
    // One scan that stops at U+2028 and U+2029 too (passing over other characters led
    // by E2: curly quotes, dashes, the euro sign); a text with one is scanned on from
    // there for the closing quote alone.
    var end = JSONDialect.nextEscape(in: bytes, from: start)
    let plain = end == bytes.count || bytes[end] != 0xE2
    if !plain { end = JSONDialect.nextStop(in: bytes, from: end, lineSeparatorLead: false) }
    guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
    let closing = UInt8(ascii: "}")
    let rest = end + 1
    if bytes.count - rest == 2 {
      return bytes[rest] == closing && bytes[rest + 1] == closing ? (start..<end, nil, plain) : nil
    }
    let refKey: StaticString = #","ref":""#
    let refStart = rest + refKey.utf8CodeUnitCount
    guard bytes.count >= refStart + 3, memcmp(base + rest, refKey.utf8Start, refKey.utf8CodeUnitCount) == 0
    else {
      return nil
    }
    // The ref is kept as its JSON text, as `JSONDialect.quote` writes it: with nothing to
    // escape (U+2028 and U+2029 are, so their lead byte E2 leaves this path), its bytes
    // between quotes.
    let refEnd = JSONDialect.nextStop(in: bytes, from: refStart, lineSeparatorLead: true)
    guard refEnd == bytes.count - 3, bytes[refEnd] == UInt8(ascii: "\""), bytes[refEnd + 1] == closing,
      bytes[refEnd + 2] == closing
    else { return nil }
    return (start..<end, (refStart - 1)..<(refEnd + 1), plain)
  }

  /// Whether the bytes at `base` (at least as many as `prefix` has) start with `prefix`:
  /// compared a word at a time in place, not through a call of `memcmp` (~25 instructions
  /// of every message frame).
  @inline(__always)
  private static func startsWith(_ base: UnsafePointer<UInt8>, _ prefix: StaticString) -> Bool {
    let count = prefix.utf8CodeUnitCount
    let bytes = UnsafeRawPointer(base)
    let expected = UnsafeRawPointer(prefix.utf8Start)
    var i = 0
    while count - i >= 8 {
      guard
        bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
          == expected.loadUnaligned(fromByteOffset: i, as: UInt64.self)
      else { return false }
      i += 8
    }
    while i < count {
      guard base[i] == prefix.utf8Start[i] else { return false }
      i += 1
    }
    return true
  }

  /// Reads any JSON object through ``ClientFrameDecoder``.
  package static func decoded(_ text: String) -> ClientFrame {
    let decoder = ClientFrameDecoder(limits: .init(maxBytes: Int.max))
    guard let object = try? decoder.decode(text) else { return .plain(text) }
    guard case .string(let type) = object.type else {
      return .invalid(code: "invalid_type", message: "a frame needs a string \"type\"")
    }
    let data = object.data
    switch type {
    case "message":
      if case .string(let text) = object.dataValue { return .message(text: text, ref: nil) }
      guard object.dataValue == .object, case .string(let text) = data.text else {
        return .invalid(code: "invalid_data", message: "message needs data.text (a string)")
      }
      var ref: String? = nil
      if let raw = data.ref {
        guard let encoded = encodeScalar(raw) else {
          return .invalid(code: "invalid_data", message: "data.ref must be a string or a number")
        }
        ref = encoded
      }
      if case .bool(true) = data.action { return .action(text: text, ref: ref) }
      return .message(text: text, ref: ref)
    case "join":
      if object.dataValue != nil && object.dataValue != .object {
        return .invalid(code: "invalid_data", message: "join needs data to be an object")
      }
      var name: String? = nil
      if let raw = data.name {
        guard case .string(let s) = raw else {
          return .invalid(code: "invalid_data", message: "data.name must be a string")
        }
        name = s
      }
      var room: String? = nil
      if let raw = data.room {
        guard case .string(let s) = raw, let valid = RoomName.validate(s) else {
          return .invalid(code: "invalid_data", message: "data.room must be 1-64 letters, digits, - _ .")
        }
        room = valid
      }
      var since: UInt64? = nil
      if let raw = data.since, raw != .null {
        guard case .number(let number) = raw, let count = count(number) else {
          return .invalid(code: "invalid_data", message: "data.since must be a non-negative integer")
        }
        since = count
      }
      var epoch: String? = nil
      if let raw = data.epoch, raw != .null {
        guard case .string(let s) = raw else {
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
      if object.dataValue != nil && object.dataValue != .object && object.dataValue != .null {
        return .invalid(code: "invalid_data", message: "history needs data to be an object")
      }
      guard let raw = data.limit, raw != .null else { return .history(limit: HistoryRequest.defaultCount) }
      guard case .number(let number) = raw, let limit = count(number), limit >= 1,
        limit <= UInt64(HistoryRequest.maxCount)
      else {
        return .invalid(
          code: "invalid_data",
          message: "data.limit must be a whole number from 1 to \(HistoryRequest.maxCount)")
      }
      return .history(limit: Int(limit))
    case "refresh":
      guard case .string(let token)? = data.token, !token.isEmpty else {
        return .invalid(code: "invalid_data", message: "refresh needs data.token (a string)")
      }
      return .refresh(token: token)
    case "features":
      guard let names = object.dataStrings else {
        return .invalid(code: "invalid_data", message: "features needs data to be an array of names")
      }
      return .features(names)
    case "typing":
      guard case .bool(let active)? = data.active else {
        return .invalid(code: "invalid_data", message: "typing needs data.active (true or false)")
      }
      return .typing(active: active)
    default:
      return .invalid(
        code: "unknown_type", message: "unknown type \(JSONDialect.quote(String(type.prefix(64))))")
    }
  }

  /// `since`: a non-negative whole number below 1.8e19, as the reference parser took it
  /// (so `1.0` and `1e3` are counts, `1.5` and `-1` are not).
  private static func count(_ number: ClientFrameDecoder.Number) -> UInt64? {
    if let integer = number.integer { return integer >= 0 ? UInt64(integer) : nil }
    guard let n = foundationNumber(number) else { return nil }
    let d = n.doubleValue
    guard d >= 0, d == d.rounded(), d < 1.8e19 else { return nil }
    return n.uint64Value
  }

  /// A `ref` as JSON text for the `ack`: a string re-quoted, a number written as the
  /// reference parser wrote it (whole numbers below 1e15 as integers).
  private static func encodeScalar(_ value: ClientFrameDecoder.Value) -> String? {
    switch value {
    case .string(let s):
      return JSONDialect.quote(s)
    case .number(let number):
      if let integer = number.integer { return String(integer) }
      guard let n = foundationNumber(number) else { return nil }
      let d = n.doubleValue
      if d == d.rounded() && abs(d) < 1e15 { return String(Int64(d)) }
      return d.isFinite ? String(d) : nil
    case .null, .bool, .array, .object:
      return nil
    }
  }

  /// A number other than a short integer (a fraction, an exponent, 16 digits or more) as
  /// Foundation reads it: `Int64`, `UInt64`, `Decimal` or `Double` by its own rules, which
  /// decide the value's last digits. Rare in client frames, so Foundation's cost is paid
  /// only here.
  private static func foundationNumber(_ number: ClientFrameDecoder.Number) -> NSNumber? {
    (try? JSONSerialization.jsonObject(with: Data(number.text.utf8), options: [.fragmentsAllowed]))
      as? NSNumber
  }
}
