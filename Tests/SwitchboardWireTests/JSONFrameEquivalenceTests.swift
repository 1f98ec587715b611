import Foundation
import SwitchboardTestSupport
import SwitchboardWire
import Testing

/// The byte-level encoder and the Foundation-free decoder against the implementations
/// they replaced (``JSONReference``): the same frame bytes for every frame, the same
/// ``ClientFrame`` (and so the same error answer) for every text, the same accept/refuse
/// verdict as `JSONSerialization` for every object.
@Suite(.onTestThreads)
struct JSONFrameEquivalenceTests {
  /// Strings that reach every branch of the escaper: each scalar below 0x80 alone and
  /// among others, quotes and backslashes in runs, the E2 lead byte of U+2028/U+2029 and
  /// of its neighbours (U+2027, U+202A, U+20AC), other non-ASCII, and the replacement
  /// characters a lone surrogate's bytes decode to (a Swift string cannot hold one).
  private static func strings() -> [String] {
    var out: [String] = [""]
    for value in 0..<0x80 {
      let s = String(UnicodeScalar(UInt8(value)))
      out += [s, "a" + s, s + "b", "x" + s + s + "y"]
    }
    out += [
      "\"", "\\", "\"\\\"", "\\\\n", "\u{2028}", "\u{2029}", "a\u{2028}b\u{2029}c", "\u{2027}", "\u{202A}",
      "€", "it’s “quoted” — fine", "a\u{2028}’\u{2029}—",
      "…", "\u{E000}", "é", "Zoë", "日本語", "👋🏽", "\u{10FFFF}", "\u{FEFF}", "\u{7F}\u{80}\u{9F}",
      String(decoding: [0xED, 0xA0, 0x80], as: UTF8.self),
      String(decoding: [0x61, 0xE2, 0x80], as: UTF8.self),
      String(decoding: [0xE2, 0x80, 0xA8, 0xE2], as: UTF8.self), String(repeating: "ab\"c\n", count: 300),
    ]
    var rng = SeededGenerator(seed: 16)
    let alphabet: [Unicode.Scalar] = [
      "a", " ", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{8}", "\u{C}", "\u{1B}", "\u{1F}", "é", "\u{2028}",
      "\u{2029}", "€", "👋", "日", "’", "\u{2027}",
    ]
    for _ in 0..<2000 {
      var s = String.UnicodeScalarView()
      for _ in 0..<Int(rng.next() % 24) { s.append(alphabet[Int(rng.next() % UInt64(alphabet.count))]) }
      out.append(String(s))
    }
    return out
  }

  @Test func quotingMatchesTheStringEncoderByteForByte() {
    for s in Self.strings() {
      let new = JSONDialect.quote(s)
      let old = JSONReference.quote(s)
      #expect(Array(new.utf8) == Array(old.utf8), "\(s.debugDescription): \(new) against \(old)")
    }
  }

  /// The escaper and the decoder find the next special byte eight at a time: each one at
  /// every position of a word and across words, in ASCII and after multi-byte characters.
  @Test func aSpecialByteIsFoundAtEveryPositionOfAWord() {
    let specials: [String] = ["\"", "\\", "\n", "\u{0}", "\u{1F}", "\u{2028}", "\u{2029}", "\u{2027}", "é"]
    for lead in ["", "é", "日本"] {
      for special in specials {
        for at in 0..<20 {
          let s = lead + String(repeating: "a", count: at) + special + String(repeating: "b", count: 19 - at)
          let quoted = JSONDialect.quote(s)
          #expect(Array(quoted.utf8) == Array(JSONReference.quote(s).utf8), "\(s.debugDescription)")
          let frame = #"{"type":"message","data":{"text":"# + quoted + "}}"
          #expect(ClientFrame.parse(frame) == .message(text: s, ref: nil), "\(frame)")
          // The one-pass copy of the plain-frame writer stops at it too (`é` is no stop, nor
          // U+2027, led by E2 like U+2028).
          let m = ChatMessage(id: 1, room: "r", time: 2, author: "a", color: "c", text: s)
          #expect(
            (JSONDialect.plainMessageFrame(m, headerRoom: 0) != nil) == ["é", "\u{2027}"].contains(special),
            "\(s.debugDescription)")
        }
      }
    }
  }

  @Test func headerRoomPrecedesTheSameFrameBytes() {
    let zeros = [UInt8](repeating: 0, count: 10)
    // A plain message (written in one pass) and one with an escape (built piece by piece).
    for text in ["hi", "hi\n"] {
      let m = ChatMessage(id: 7, room: "lobby", time: 1, author: "ann", color: "#fff", text: text)
      #expect(JSONDialect.encodedBytes(m, headerRoom: 10) == zeros + JSONDialect.encodedBytes(m))
    }
    let p = PresenceEvent(kind: .rename(from: "old"), author: "ann", room: "lobby", members: 2, color: "#fff")
    #expect(JSONDialect.encodedBytes(p, headerRoom: 10) == zeros + JSONDialect.encodedBytes(p))
  }

  @Test func everyFrameEncodesToTheSameBytes() {
    let strings = Self.strings()
    var rng = SeededGenerator(seed: 4)
    func pick() -> String { strings[Int(rng.next() % UInt64(strings.count))] }
    var messages: [ChatMessage] = []
    for i in 0..<600 {
      let m = ChatMessage(
        id: i == 0 ? UInt64.max : rng.next() >> (rng.next() % 64), room: pick(),
        time: i == 1 ? Int64.min : Int64(bitPattern: rng.next()) >> Int64(rng.next() % 64), author: pick(),
        color: pick(), text: pick(), isAction: rng.next() % 4 == 0)
      messages.append(m)
      #expect(JSONDialect.encodedBytes(m) == Array(JSONReference.message(m).utf8), "\(m)")
      let kinds: [PresenceEvent.Kind] = [.join, .leave, .rename(from: pick())]
      let p = PresenceEvent(
        kind: kinds[i % 3], author: pick(), room: pick(), members: Int(rng.next() % 100_000), color: pick())
      #expect(JSONDialect.encodedBytes(p) == Array(JSONReference.presence(p).utf8), "\(p)")
    }
    let reason = pick()
    #expect(JSONDialect.goingAway(reason: reason) == JSONReference.error(code: "going_away", message: reason))
    for count in [0, 1, 2, 50] {
      let slice = Array(messages.prefix(count))
      for recovered in [true, false] {
        let epoch = pick()
        #expect(
          Array(JSONDialect.history(slice, epoch: epoch, recovered: recovered).utf8)
            == Array(JSONReference.history(slice, epoch: epoch, recovered: recovered).utf8))
      }
    }
    for m in messages.prefix(100) { #expect(JSONDialect.object(m) == JSONReference.object(m)) }
  }

  /// Texts shaped like client frames (the existing generator) and JSON written every way
  /// (``JSONRandomText``): the new parse gives the frame the `JSONSerialization` one gave.
  @Test func clientFramesParseAsTheFoundationParserParsedThem() {
    var rng = SeededGenerator(seed: 1604)
    var kinds: [String: Int] = [:]
    for round in 0..<12_000 {
      let text = round % 2 == 0 ? RandomClientFrame.text(&rng) : JSONRandomText.text(&rng)
      let maxLength = round % 16 == 0 ? Int(rng.next() % 80) : 1 << 20
      let new = ClientFrame.parse(text, maxLength: maxLength)
      let old = JSONReference.parse(text, maxLength: maxLength)
      #expect(new == old, "\(text.debugDescription)")
      switch new {
      case .plain: kinds["plain", default: 0] += 1
      case .message, .action: kinds["message", default: 0] += 1
      case .join: kinds["join", default: 0] += 1
      case .who, .rooms, .history, .refresh, .features, .typing: kinds["query", default: 0] += 1
      case .invalid(let code, _): kinds[code, default: 0] += 1
      }
    }
    for kind in ["plain", "message", "join", "too_large", "invalid_type", "invalid_data", "unknown_type"] {
      #expect(kinds[kind, default: 0] >= 100, "\(kind): \(kinds)")
    }
  }

  /// The one-pass writer of plain message frames (``JSONDialect/plainMessageFrame(_:headerRoom:)``,
  /// and the count and in-place writer it is made of) against the piece-by-piece builder: the same bytes whenever it writes, for every mix
  /// of plain and escaped strings, ids and times of every length and sign, and `/me`; and
  /// it writes for the plain ones (those the builder quotes with nothing escaped: an E2
  /// that leads a curly quote or a euro sign included).
  @Test func thePlainFrameWriterMakesTheBuildersBytes() {
    let strings = Self.strings()
    var rng = SeededGenerator(seed: 2029)
    func pick() -> String { strings[Int(rng.next() % UInt64(strings.count))] }
    let numbers: [UInt64] = [0, 1, 9, 10, 99, 100, 12_345, 1 << 40, UInt64(Int64.max), .max]
    var written = 0
    for round in 0..<4000 {
      let plainOnly = round % 2 == 0
      func string() -> String {
        var s = pick()
        while plainOnly && JSONDialect.quote(s) != "\"" + s + "\"" { s = pick() }
        return s
      }
      let id = numbers[Int(rng.next() % UInt64(numbers.count))]
      let time =
        Int64(truncatingIfNeeded: numbers[Int(rng.next() % UInt64(numbers.count))])
        * (round % 3 == 0 ? -1 : 1)
      let m = ChatMessage(
        id: id, room: string(), time: time, author: string(), color: string(), text: string(),
        isAction: round % 5 == 0)
      let room = Int(rng.next() % 12)
      var built: [UInt8] = [UInt8](repeating: 0, count: room)
      JSONDialect.appendObject(m, to: &built, opening: #"{"type":"message","data":{"id":"#, inFrame: true)
      // The count and the in-place writer on their own (what the WebSocket frame in
      // SharedBytes is made of): the builder's bytes, in exactly the storage counted,
      // whenever the writer finishes.
      let count = JSONDialect.plainMessageFrameCount(m)
      var finished = false
      let inPlace = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        finished = JSONDialect.writePlainMessageFrame(m, into: UnsafeMutableRawBufferPointer(buffer))
        initialized = finished ? count : 0
      }
      if let plain = JSONDialect.plainMessageFrame(m, headerRoom: room) {
        written += 1
        #expect(plain == built, "\(m)")
        #expect(finished && inPlace[...] == built[room...], "\(m)")
      } else {
        #expect(!finished, "written in place, yet not into the array: \(m)")
        #expect(!plainOnly, "a plain message was left to the builder: \(m)")
      }
    }
    #expect(written >= 2000)
  }

  /// Strings flagged as needing no escape (by the same check the hub and the canonical
  /// reader make, ``JSONDialect/needsNoEscape(_:)``) are copied unchecked, and the frame is
  /// still the builder's bytes; the check itself says "none" exactly when the builder
  /// would add nothing.
  @Test func stringsFlaggedPlainAreCopiedAsTheBuilderWritesThem() {
    let all = Self.strings()
    for s in all {
      #expect(
        JSONDialect.needsNoEscape(s) == (JSONDialect.quote(s) == "\"" + s + "\""),
        "\(s.debugDescription)")
    }
    let strings = all.filter(JSONDialect.needsNoEscape)
    var rng = SeededGenerator(seed: 2030)
    func pick() -> String { strings[Int(rng.next() % UInt64(strings.count))] }
    for round in 0..<2000 {
      let m = Array(pick().utf8).withUnsafeBytes {
        ChatMessage(
          id: UInt64(round) * 7919, room: pick(), time: Int64(round) * 1_000_003 - 5_000, author: pick(),
          color: pick(),
          validatedUTF8: $0, isAction: round % 7 == 0, textNeedsNoJSONEscape: true,
          stringsNeedNoJSONEscape: true)
      }
      var built: [UInt8] = []
      JSONDialect.appendObject(m, to: &built, opening: #"{"type":"message","data":{"id":"#, inFrame: true)
      #expect(JSONDialect.plainMessageFrame(m, headerRoom: 0) == built, "\(m)")
    }
  }

  /// The canonical reader's word on a text (``ClientFrame/canonicalMessageParts(_:)``'s
  /// `textNeedsNoJSONEscape`) is the check's, for every string written as clients write
  /// it and raw where JSON lets it stand raw (U+2028, non-ASCII).
  @Test func theCanonicalReaderSaysATextIsPlainExactlyWhenItIs() {
    var checked = 0
    for s in Self.strings() {
      let raw = !s.unicodeScalars.contains { $0 == "\"" || $0 == "\\" || $0.value < 0x20 }
      var bodies = [String(JSONDialect.quote(s).dropFirst().dropLast())]
      if raw { bodies.append(s) }
      for body in bodies {
        let frame = Array((#"{"type":"message","data":{"text":""# + body + #""}}"#).utf8)
        guard let parts = frame.withUnsafeBufferPointer({ ClientFrame.canonicalMessageParts($0) }) else {
          continue
        }
        let text = String(decoding: frame[parts.text], as: UTF8.self)
        #expect(parts.textNeedsNoJSONEscape == JSONDialect.needsNoEscape(text), "\(body.debugDescription)")
        checked += 1
      }
    }
    #expect(checked > 1000)
  }

  /// The canonical-message path (``ClientFrame/canonicalMessage(_:)``) against the general
  /// decoder and the Foundation reference: for texts and refs of every kind, written as
  /// clients write them and mutated near that form (a byte cut, added, changed, spaces,
  /// keys reordered or doubled), it answers what they answer, or leaves the text to them.
  @Test func theCanonicalMessagePathAnswersAsTheDecoderDoes() {
    let strings = Self.strings()
    var rng = SeededGenerator(seed: 2028)
    var taken = 0
    var frames: [String] = []
    for (i, s) in strings.enumerated() {
      let ref = strings[Int(rng.next() % UInt64(strings.count))]
      frames.append(#"{"type":"message","data":{"text":"# + JSONDialect.quote(s) + "}}")
      frames.append(
        #"{"type":"message","data":{"text":"# + JSONDialect.quote(s) + #","ref":"# + JSONDialect.quote(ref)
          + "}}")
      frames.append(#"{"type":"message","data":{"text":"# + JSONDialect.quote(s) + #","ref":\#(i)}}"#)
      frames.append(
        #"{"type":"message","data":{"ref":"# + JSONDialect.quote(ref) + #","text":"# + JSONDialect.quote(s)
          + "}}")
    }
    var mutated: [String] = []
    for frame in frames where rng.next() % 4 == 0 {
      var bytes = Array(frame.utf8)
      let at = Int(rng.next() % UInt64(bytes.count))
      switch rng.next() % 5 {
      case 0: bytes.remove(at: at)
      case 1: bytes.insert(Array(#" "}{,:"#.utf8)[Int(rng.next() % 6)], at: at)
      case 2: bytes[at] = Array(#"x"}\,"#.utf8)[Int(rng.next() % 5)]
      case 3: bytes = Array(bytes[..<at])
      default: bytes += Array(#","text":"again"}}"#.utf8)
      }
      mutated.append(String(decoding: bytes, as: UTF8.self))
    }
    for text in frames + mutated {
      let general = ClientFrame.decoded(text)
      if let fast = ClientFrame.canonicalMessage(text) {
        taken += 1
        #expect(fast == general, "\(text.debugDescription)")
      }
      #expect(ClientFrame.parse(text) == general, "\(text.debugDescription)")
      // Foundation drops a U+FEFF that starts a string value (it takes it for a byte order
      // mark); the decoder keeps it, as RFC 8259 reads the string. Found by this test; the
      // only difference in what the two read.
      if !text.unicodeScalars.contains("\u{FEFF}") {
        #expect(ClientFrame.parse(text) == JSONReference.parse(text), "\(text.debugDescription)")
      }
    }
    // The path is taken at least for the first form of every text with nothing to escape.
    let plain = strings.filter { JSONDialect.quote($0) == "\"" + $0 + "\"" }.count
    #expect(plain > 100 && taken >= plain, "canonical path taken \(taken) times, \(plain) plain texts")
  }

  /// The decoder itself accepts exactly the objects `JSONSerialization` accepts, and reads
  /// the same `type` and `data` from them.
  @Test func theDecoderAcceptsWhatJSONSerializationAccepts() {
    var rng = SeededGenerator(seed: 512)
    var accepted = 0
    var refused = 0
    for _ in 0..<8_000 {
      let text = JSONRandomText.text(&rng)
      let decoded = try? ClientFrameDecoder().decode(text)
      let reference =
        (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]))
        as? [String: Any]
      #expect((decoded != nil) == (reference != nil), "\(text.debugDescription)")
      guard let decoded, let reference else {
        refused += 1
        continue
      }
      accepted += 1
      #expect(Self.same(decoded.type, reference["type"]), "type of \(text.debugDescription)")
      #expect(Self.same(decoded.dataValue, reference["data"]), "data of \(text.debugDescription)")
      if let data = reference["data"] as? [String: Any] {
        let fields = decoded.data
        for (name, value) in [
          ("text", fields.text), ("ref", fields.ref), ("name", fields.name), ("room", fields.room),
          ("since", fields.since), ("epoch", fields.epoch),
        ] {
          #expect(Self.same(value, data[name]), "data.\(name) of \(text.debugDescription)")
        }
      }
    }
    #expect(accepted >= 1000 && refused >= 1000, "accepted \(accepted), refused \(refused)")
  }

  /// A decoded value and Foundation's for the same member: the same kind, and for strings,
  /// booleans and numbers the same value.
  private static func same(_ value: ClientFrameDecoder.Value?, _ reference: Any?) -> Bool {
    switch value {
    case nil: return reference == nil
    case .null: return reference is NSNull
    case .string(let s): return (reference as? String).map { Array($0.utf8) == Array(s.utf8) } ?? false
    case .array: return reference is [Any]
    case .object: return reference is [String: Any]
    case .bool(let b):
      guard let n = reference as? NSNumber, String(cString: n.objCType) == "c" else { return false }
      return n.boolValue == b
    case .number(let number):
      guard let n = reference as? NSNumber, String(cString: n.objCType) != "c" else { return false }
      if let integer = number.integer { return n.int64Value == integer && n.doubleValue == Double(integer) }
      return n.doubleValue.isFinite
    }
  }

  @Test(arguments: [
    // Foundation's quirks, which the decoder keeps.
    (#"{"type":"message","data":{"text":"a",},}"#, ClientFrame.message(text: "a", ref: nil)),
    (#"{"type":"message","data":"a","data":{"text":"b"}}"#, .message(text: "b", ref: nil)),
    (#"{"t\u0079pe":"m\u0065ssage","data":"\ud83d\udc4b"}"#, .message(text: "👋", ref: nil)),
    (#"{"type":"message","data":{"text":"a","ref":1.50}}"#, .message(text: "a", ref: "1.5")),
    (#"{"type":"message","data":{"text":"a","ref":1e2}}"#, .message(text: "a", ref: "100")),
    (#"{"type":"message","data":{"text":"a","ref":-0}}"#, .message(text: "a", ref: "0")),
    (
      #"{"type":"message","data":{"text":"a","ref":12345678901234567890123}}"#,
      .message(text: "a", ref: "1.2345678901234568e+22")
    ),
    (
      #"{"type":"join","data":{"since":1e19}}"#,
      .join(name: nil, room: nil, since: 10_000_000_000_000_000_000)
    ),
    (
      #"{"type":"join","data":{"since":17999999999999999999}}"#,
      .invalid(
        code: "invalid_data", message: "data.since must be a non-negative integer")
    ),
    (
      #"{"type":"join","data":{"since":"5"}}"#,
      .invalid(
        code: "invalid_data", message: "data.since must be a non-negative integer")
    ),
    (#"{"type":"join","data":{"since":null,"epoch":null}}"#, .join(name: nil, room: nil, since: nil)),
    (#"{"type":"message","data":"\ud800"}"#, .plain(#"{"type":"message","data":"\ud800"}"#)),
    (#"{"type":"message","data":1e400}"#, .plain(#"{"type":"message","data":1e400}"#)),
    (#"{"type":"message","data":[1,,2]}"#, .plain(#"{"type":"message","data":[1,,2]}"#)),
    // Foundation converts a number only when it keeps the value: one too large for a
    // Double is refused, unless a later member of the same name replaces it.
    (#"{"type":"message","data":1e400,"d\u0061ta":"a"}"#, .message(text: "a", ref: nil)),
    (#"{"type":"message","data":{"text":"a","x":[{"y":-1e400,"y":0}]}}"#, .message(text: "a", ref: nil)),
  ])
  func foundationsQuirksAreKept(text: String, expected: ClientFrame) {
    #expect(JSONReference.parse(text) == expected)
    #expect(ClientFrame.parse(text) == expected)
  }

  /// The one deliberate difference: with a NUL among its first four bytes,
  /// `JSONSerialization` reads the text as UTF-16 or UTF-32 (so `{\0}\0` was `{}`, an
  /// `invalid_type`); a WebSocket text frame is UTF-8, and such a text is not an object.
  @Test(arguments: ["{\u{0}}\u{0}", "{\u{0}\u{0}\u{0}}\u{0}\u{0}\u{0}"])
  func aTextFrameIsReadAsUTF8EvenWhereFoundationGuessedAnotherEncoding(text: String) {
    #expect(
      JSONReference.parse(text) == .invalid(code: "invalid_type", message: "a frame needs a string \"type\""))
    #expect(ClientFrame.parse(text) == .plain(text))
  }

  /// Foundation refuses nesting deeper than 512, the frame's own object included; so does
  /// the decoder, iteratively (100,000 levels cost no stack).
  @Test(arguments: [510, 511, 512, 100_000])
  func nestingIsLimitedAsFoundationLimitsIt(depth: Int) {
    let text =
      #"{"type":"message","data":{"text":"x","k":"# + String(repeating: "[", count: depth - 2)
      + String(repeating: "]", count: depth - 2) + "}}"
    let expected = JSONReference.parse(text)
    #expect(ClientFrame.parse(text) == expected)
    #expect(expected == (depth <= 512 ? .message(text: "x", ref: nil) : .plain(text)))
  }
}
