import Foundation
import SwitchboardFuzzSupport
import SwitchboardWire

// libFuzzer target for the WebSocket JSON protocol (docs/TESTING.md, "Fuzzing"): every
// input, read as UTF-8, goes through ClientFrame.parse. Properties: non-objects stay plain
// text, oversized objects are `too_large`, every refusal carries a documented code, a
// joined room is valid; the frames the parser returns (queries `who` and `rooms` included), written back as JSON with the
// dialect's own quoting, parse to themselves (a ref with a fraction or an exponent to a
// number within a few units in its last place); JSONDialect.quote of any text reads back,
// through JSONSerialization, as that text; and the Foundation-free ClientFrameDecoder
// accepts exactly the objects JSONSerialization accepts, reading the same `type` from them;
// and the canonical-message fast path answers as the decoder does wherever it answers;
// its word that a text needs no escape is the check's, and the frame writer's bytes for such
// a text, copied unchecked, are the builder's. And the line rule (docs/PROTOCOLS.md, "Text
// inside a line"): the text of a message frame, and the name of a join frame or of a first
// plain frame, reach a line member as exactly one line each, none of them a notice, an error
// or another author's, reading back exactly (`LineDialect.ruleBreach`).

/// Small, so that the fuzzer reaches it.
let maxLength = 2048

/// The codes ``ClientFrame/invalid(code:message:)`` may carry.
let codes: Set = ["too_large", "invalid_type", "invalid_data", "unknown_type"]

/// The canonical reader's word that a text needs no escape is the check's
/// (`JSONDialect.needsNoEscape`), and the frame writer that copies such a text unchecked
/// writes the builder's bytes; unflagged, it writes them or leaves the text to the builder.
func checkPlainFlag(_ bytes: [UInt8]) {
  guard let parts = bytes.withUnsafeBufferPointer({ ClientFrame.canonicalMessageParts($0) }) else { return }
  let body = String(decoding: bytes[parts.text], as: UTF8.self)
  Fuzz.require(
    parts.textNeedsNoJSONEscape == JSONDialect.needsNoEscape(body), "the reader's plain flag for \(body)")
  for flagged in [parts.textNeedsNoJSONEscape, false] {
    let m = bytes[parts.text].withUnsafeBytes {
      ChatMessage(
        id: 1, room: "r", time: 2, author: "a", color: "c", validatedUTF8: $0, textNeedsNoJSONEscape: flagged,
        stringsNeedNoJSONEscape: true)
    }
    var built: [UInt8] = []
    JSONDialect.appendObject(m, to: &built, opening: #"{"type":"message","data":{"id":"#, inFrame: true)
    let written = JSONDialect.plainMessageFrame(m, headerRoom: 0)
    Fuzz.require(written == nil ? !flagged : written == built, "the plain writer's frame of \(body)")
  }
}

func check(_ bytes: [UInt8]) {
  let text = String(decoding: bytes, as: UTF8.self)
  let frame = ClientFrame.parse(text, maxLength: maxLength)
  if let fast = ClientFrame.canonicalMessage(text) {
    Fuzz.require(fast == ClientFrame.decoded(text), "the canonical-message path read \(fast)")
  }
  checkPlainFlag(Array(text.utf8))
  let isObject = text.utf8.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "{")
  if !isObject { Fuzz.require(frame == .plain(text), "not an object, yet \(frame)") }
  if isObject && text.utf8.count > maxLength {
    Fuzz.require(frame == .invalid(code: "too_large", message: "frame over \(maxLength) bytes"), "size limit")
  }
  checkLineRule(frame)
  switch frame {
  case .plain(let plain):
    Fuzz.require(plain == text, "plain text changed")
  case .invalid(let code, _):
    Fuzz.require(codes.contains(code), "undocumented code \(code)")
  case .message(let body, let ref):
    var object = #"{"type":"message","data":{"text":"# + JSONDialect.quote(body)
    if let ref { object += #","ref":"# + ref }
    if let ref, !isExact(ref) {
      expectClose(object + "}}", text: body, ref: ref)
    } else {
      expect(object + "}}", frame)
    }
    if ref == nil { expect(#"{"type":"message","data":"# + JSONDialect.quote(body) + "}", frame) }
  case .join(let name, let room, let since, let epoch):
    if let room { Fuzz.require(RoomName.validate(room) == room, "joined the invalid room \(room)") }
    var fields: [String] = []
    if let name { fields.append(#""name":"# + JSONDialect.quote(name)) }
    if let room { fields.append(#""room":"# + JSONDialect.quote(room)) }
    if let since { fields.append(#""since":\#(since)"#) }
    if let epoch { fields.append(#""epoch":"# + JSONDialect.quote(epoch)) }
    expect(#"{"type":"join","data":{"# + fields.joined(separator: ",") + "}}", frame)
  case .action(let body, let ref):
    var object = #"{"type":"message","data":{"text":"# + JSONDialect.quote(body) + #","action":true"#
    if let ref, isExact(ref) { object += #","ref":"# + ref }
    if ref == nil || isExact(ref!) { expect(object + "}}", frame) }
  case .who:
    expect(#"{"type":"who"}"#, frame)
  case .rooms:
    expect(#"{"type":"rooms"}"#, frame)
  case .history(let limit):
    Fuzz.require((1...HistoryRequest.maxCount).contains(limit), "history limit \(limit) out of bounds")
    expect(#"{"type":"history","data":{"limit":\#(limit)}}"#, frame)
  case .refresh(let token):
    Fuzz.require(!token.isEmpty, "refresh with an empty token")
    expect(JSONDialect.refresh(token: token), frame)
  case .features(let names):
    Fuzz.require(names.count <= 32 && names.allSatisfy { $0.utf8.count <= 64 }, "features beyond the limits")
    expect(
      #"{"type":"features","data":["# + names.map(JSONDialect.quote).joined(separator: ",") + "]}", frame)
    checkFeatureNames(text, names)
  case .typing(let active):
    expect(#"{"type":"typing","data":{"active":\#(active)}}"#, frame)
  }
  if isObject && text.utf8.count <= maxLength { agreesWithFoundation(text) }
  let quoted = JSONDialect.quote(text)
  let read =
    try? JSONSerialization.jsonObject(with: Data(quoted.utf8), options: [.fragmentsAllowed]) as? String
  Fuzz.require(read == text, "quote does not read back: \(quoted)")
}

/// What a frame brings to a line member: a message's text (from `mallory`), a join's name or
/// a plain frame's (the seed's first frame is the name) sending `hi`; each name as the hub
/// cleans it, if its rule admits it.
func checkLineRule(_ frame: ClientFrame) {
  var lines: [(name: String, text: String)] = []
  switch frame {
  case .plain(let plain):
    lines = [("mallory", plain)]
    if let name = LineDialect.cleanName(plain, maxLength: 64) { lines.append((name, "hi")) }
  case .message(let body, _):
    lines = [("mallory", body)]
  case .action(let body, _):
    if LineDialect.actionRefusal(author: "mallory", action: body) == nil { lines = [("mallory", body)] }
  case .join(let name?, _, _, _):
    if let name = LineDialect.cleanName(name, maxLength: 64) { lines = [(name, "hi")] }
  case .join, .who, .rooms, .history, .refresh, .features, .typing, .invalid:
    break
  }
  for (name, text) in lines where LineDialect.nameRefusal(name) == nil {
    if let breach = LineDialect.ruleBreach(author: name, text: text) { Fuzz.require(false, breach) }
  }
}

/// A `features` frame's names are the strings of its `data` array as `JSONSerialization`
/// reads them, in order, those over 64 bytes left out, at most 32.
func checkFeatureNames(_ text: String, _ names: [String]) {
  guard !text.utf8.prefix(4).contains(0),
    let reference = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
    let items = reference["data"] as? [Any]
  else { return }
  let strings = items.compactMap { $0 as? String }.filter { $0.utf8.count <= 64 }
  Fuzz.require(Array(strings.prefix(32)) == names, "features names differ from JSONSerialization's")
}

/// The decoder and `JSONSerialization` accept the same objects, with the same `type`.
/// Except where a NUL is among the first four bytes: there `JSONSerialization` guesses
/// UTF-16 or UTF-32 (`{\0}\0` is `{}` to it); a text frame is UTF-8, and the decoder reads
/// it so (a deliberate difference: RFC 8259 reads JSON text as UTF-8).
func agreesWithFoundation(_ text: String) {
  guard !text.utf8.prefix(4).contains(0) else { return }
  let decoded = try? ClientFrameDecoder().decode(text)
  let reference =
    (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) as? [String: Any]
  Fuzz.require((decoded != nil) == (reference != nil), "decoder and JSONSerialization disagree on acceptance")
  guard let decoded, let reference else { return }
  switch decoded.type {
  case .string(let type): Fuzz.require(reference["type"] as? String == type, "type \(type) read differently")
  case nil: Fuzz.require(reference["type"] == nil, "a type the decoder missed")
  default: Fuzz.require(!(reference["type"] is String), "a string type the decoder missed")
  }
}

/// Whether `ref` (as the parser wrote it) reads back to itself: a string or an integer. A
/// number with a fraction or an exponent goes through Foundation, which may read its
/// 17th digit differently (`1.4444444444444444e+27` came back as `…442e+27`).
func isExact(_ ref: String) -> Bool {
  // Bytes, not characters: a quote followed by a combining mark (`"` U+20E9) is one
  // Character, which `hasPrefix("\"")` does not match (found by the fuzzer).
  ref.utf8.first == UInt8(ascii: "\"")
    || ref.utf8.allSatisfy { $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) }
}

/// `object` must parse to a message of `text` whose `ref` is a number within a few units in
/// the last place of `ref`.
func expectClose(_ object: String, text: String, ref: String) {
  let again = ClientFrame.parse(object, maxLength: Int.max)
  guard case .message(text, let readRef?) = again, let a = Double(ref), let b = Double(readRef) else {
    Fuzz.require(false, "round trip: a message with ref \(ref) written as \(object) became \(again)")
    return
  }
  Fuzz.require(a == b || abs(a - b) <= 1e-14 * max(abs(a), abs(b)), "ref \(ref) read back as \(readRef)")
}

/// `object` must parse to `frame`.
func expect(_ object: String, _ frame: ClientFrame) {
  let again = ClientFrame.parse(object, maxLength: Int.max)
  Fuzz.require(again == frame, "round trip: \(frame) written as \(object) became \(again)")
}

#if FUZZ_JSON
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { Fuzz.one(data, size, check) }
#else
  @main enum Replay { static func main() { Fuzz.replay(check) } }
#endif
