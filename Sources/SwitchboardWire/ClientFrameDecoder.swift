/// Reads the JSON object of a client frame (the JSON protocol's `{"type":…,"data":…}`)
/// straight from its UTF-8 bytes: a pure value type, no Foundation, no tree of values.
///
/// It accepts and refuses exactly the texts Foundation's `JSONSerialization` accepts and
/// refuses (the protocol's answers were defined by it, and a property test holds the two
/// together), including that parser's quirks: one trailing comma before `}` or `]` is
/// allowed, a later member of the same name replaces an earlier one, a number that does not
/// fit a `Double` is an error unless a later member of the same name replaces the member
/// holding it (Foundation converts numbers only for the values it keeps), nesting deeper
/// than 512 is an error. Refused as JSON:
/// unescaped control characters, lone surrogate escapes, leading zeros, anything after the
/// object but whitespace.
///
/// Only the members the protocol reads are kept: `type` and `data` at the top, and `text`,
/// `ref`, `name`, `room`, `since`, `epoch` inside a `data` object. Every other value is
/// checked and skipped without building anything, iteratively (no recursion, so depth
/// costs no stack).
package struct ClientFrameDecoder {
  /// Why a text is not a JSON object.
  package enum Failure: Error, Equatable {
    /// Not JSON (or not an object) at this byte offset.
    case malformed(at: Int)
    /// Containers nested deeper than ``Limits/maxDepth``.
    case tooDeep
    /// More bytes than ``Limits/maxBytes``.
    case tooLarge
  }

  /// The decoder's limits. Strings are bounded by the size limit (a string is never
  /// longer than the text holding it).
  package struct Limits: Sendable {
    /// Containers nested at most this deep, the top-level object being 1. Foundation's
    /// limit, so that both refuse the same texts.
    package var maxDepth = 512
    /// Texts of more bytes are refused before any is read.
    package var maxBytes = 1 << 20
    /// At most this many strings of a `data` array are kept (the rest are checked and
    /// skipped), each of at most ``maxDataStringBytes`` bytes (longer ones are skipped):
    /// a `features` frame names a handful of short words.
    package var maxDataStrings = 32
    /// See ``maxDataStrings``.
    package var maxDataStringBytes = 64

    package init(maxDepth: Int = 512, maxBytes: Int = 1 << 20) {
      self.maxDepth = maxDepth
      self.maxBytes = maxBytes
    }
  }

  /// A JSON number as written; `integer` is its value when it is a plain integer of at
  /// most 15 digits (exact in a `Double`, the common case), else `nil` and only `text`
  /// says what it is.
  package struct Number: Equatable, Sendable {
    package var text: String
    package var integer: Int64?
  }

  /// A member's value: scalars in full, containers by kind only (their contents were
  /// checked and skipped), except a `data` object, whose fields are in ``Object/data``.
  package enum Value: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Number)
    case string(String)
    case array
    case object
  }

  /// The fields of a `data` object the protocol reads; `nil` when absent.
  package struct DataFields: Equatable, Sendable {
    package var text: Value?
    package var ref: Value?
    package var name: Value?
    package var room: Value?
    package var since: Value?
    package var epoch: Value?
    /// `true`: a `message` is a `/me` action.
    package var action: Value?
    /// A `history` request's count.
    package var limit: Value?
    /// A `refresh` frame's token.
    package var token: Value?
    /// A `typing` frame's state.
    package var active: Value?
  }

  /// What a client frame's object holds for the protocol.
  package struct Object: Equatable, Sendable {
    /// The last `type` member.
    package var type: Value?
    /// The last `data` member (`.object` when it is one: its fields are in `data`).
    package var dataValue: Value?
    /// The fields of the last `data` member, when that is an object.
    package var data = DataFields()
    /// The strings of the last `data` member, when that is an array (a `features` frame's
    /// names), at most ``Limits/maxDataStrings`` of them; its other items are checked and
    /// skipped. `nil` when `data` is not an array.
    package var dataStrings: [String]? = nil
  }

  package let limits: Limits

  package init(limits: Limits = Limits()) {
    self.limits = limits
  }

  /// Decodes `text`, which must be one JSON object with optional whitespace around it.
  /// - Throws: ``Failure`` when it is not (or breaks a limit).
  package func decode(_ text: String) throws(Failure) -> Object {
    guard text.utf8.count <= limits.maxBytes else { throw .tooLarge }
    var text = text
    let result: Result<Object, Failure> = text.withUTF8 { bytes in
      var scanner = Scanner(bytes: bytes, maxDepth: limits.maxDepth)
      scanner.maxDataStrings = limits.maxDataStrings
      scanner.maxDataStringBytes = limits.maxDataStringBytes
      do throws(Failure) {
        return .success(try scanner.topLevelObject())
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }
}

/// The cursor over one text's bytes; lives only inside ``ClientFrameDecoder/decode(_:)``.
private struct Scanner {
  typealias Failure = ClientFrameDecoder.Failure
  typealias Value = ClientFrameDecoder.Value

  let bytes: UnsafeBufferPointer<UInt8>
  let maxDepth: Int
  var maxDataStrings = 32
  var maxDataStringBytes = 64
  var index = 0

  init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
    self.bytes = bytes
    self.maxDepth = maxDepth
  }

  /// The members of a top-level object this decoder keeps.
  private enum TopKey { case type, data, other }
  private enum DataKey { case text, ref, name, room, since, epoch, action, limit, token, active, other }

  private var failure: Failure { .malformed(at: index) }

  private var atEnd: Bool { index >= bytes.count }

  private var current: UInt8 { bytes[index] }

  mutating func topLevelObject() throws(Failure) -> ClientFrameDecoder.Object {
    skipWhitespace()
    guard !atEnd, current == ascii("{") else { throw failure }
    guard maxDepth >= 1 else { throw .tooDeep }
    var object = ClientFrameDecoder.Object()
    index += 1
    let poisoned = try members { (scanner: inout Scanner, key: KeySpan) throws(Failure) -> Bool in
      switch scanner.topKey(key) {
      case .type:
        // The protocol's two types are compared as bytes and need no String made.
        if let known = scanner.knownType() {
          object.type = .string(known)
          return false
        }
        let (value, poisoned) = try scanner.value(depth: 1)
        object.type = value
        return poisoned
      case .data:
        if !scanner.atEnd, scanner.current == ascii("{"), scanner.maxDepth >= 2 {
          let (fields, poisoned) = try scanner.dataObject()
          object.data = fields
          object.dataValue = .object
          object.dataStrings = nil
          return poisoned
        }
        if !scanner.atEnd, scanner.current == ascii("["), scanner.maxDepth >= 2 {
          let (strings, poisoned) = try scanner.dataArray()
          object.dataValue = .array
          object.data = ClientFrameDecoder.DataFields()
          object.dataStrings = strings
          return poisoned
        }
        let (value, poisoned) = try scanner.value(depth: 1)
        object.dataValue = value
        object.data = ClientFrameDecoder.DataFields()
        object.dataStrings = nil
        return poisoned
      case .other:
        return try scanner.skipValue(depth: 1)
      }
    }
    skipWhitespace()
    guard atEnd else { throw failure }
    // A number too large for a Double in a value Foundation keeps.
    if poisoned { throw failure }
    return object
  }

  /// A `data` object (depth 2), the cursor on its `{`; `poisoned` as in ``skipValue(depth:)``.
  private mutating func dataObject() throws(Failure) -> (ClientFrameDecoder.DataFields, poisoned: Bool) {
    var fields = ClientFrameDecoder.DataFields()
    index += 1
    let poisoned = try members { (scanner: inout Scanner, key: KeySpan) throws(Failure) -> Bool in
      let field: WritableKeyPath<ClientFrameDecoder.DataFields, Value?>
      switch scanner.dataKey(key) {
      case .text: field = \.text
      case .ref: field = \.ref
      case .name: field = \.name
      case .room: field = \.room
      case .since: field = \.since
      case .epoch: field = \.epoch
      case .action: field = \.action
      case .limit: field = \.limit
      case .token: field = \.token
      case .active: field = \.active
      case .other: return try scanner.skipValue(depth: 2)
      }
      let (value, poisoned) = try scanner.value(depth: 2)
      fields[keyPath: field] = value
      return poisoned
    }
    return (fields, poisoned)
  }

  /// A `data` array (depth 2), the cursor on its `[`: its strings (within the limits), every
  /// other item checked and skipped; `poisoned` as in ``skipValue(depth:)``.
  private mutating func dataArray() throws(Failure) -> ([String], poisoned: Bool) {
    var strings: [String] = []
    var poisoned = false
    index += 1
    skipWhitespace()
    guard !atEnd else { throw failure }
    if current == ascii("]") {
      index += 1
      return (strings, false)
    }
    while true {
      guard !atEnd else { throw failure }
      if current == ascii("\"") {
        let start = index
        let string = try self.string()
        if strings.count < maxDataStrings, index - start - 2 <= maxDataStringBytes { strings.append(string) }
      } else if try skipValue(depth: 2) {
        poisoned = true
      }
      skipWhitespace()
      guard !atEnd else { throw failure }
      if current == ascii("]") {
        index += 1
        return (strings, poisoned)
      }
      guard current == ascii(",") else { throw failure }
      index += 1
      skipWhitespace()
      // One trailing comma is allowed (as Foundation allows it).
      if !atEnd, current == ascii("]") {
        index += 1
        return (strings, poisoned)
      }
    }
  }

  /// Reads an object's members after its `{` up to and including its `}`, handing each
  /// member's name to `member` with the cursor on the value (which `member` must read,
  /// returning whether it is poisoned). Returns whether a poisoned member survived.
  private mutating func members(
    _ member: (inout Scanner, KeySpan) throws(Failure) -> Bool
  ) throws(Failure) -> Bool {
    var poisoned = PoisonedMembers()
    skipWhitespace()
    guard !atEnd else { throw failure }
    if current == ascii("}") {
      index += 1
      return false
    }
    while true {
      guard !atEnd, current == ascii("\"") else { throw failure }
      let key = try keySpan()
      if poisoned.any { poisoned.replaced(by: name(key)) }
      skipWhitespace()
      guard !atEnd, current == ascii(":") else { throw failure }
      index += 1
      skipWhitespace()
      if try member(&self, key) { poisoned.add(name(key)) }
      skipWhitespace()
      guard !atEnd else { throw failure }
      if current == ascii("}") {
        index += 1
        return poisoned.any
      }
      guard current == ascii(",") else { throw failure }
      index += 1
      skipWhitespace()
      // One trailing comma is allowed (as Foundation allows it).
      if !atEnd, current == ascii("}") {
        index += 1
        return poisoned.any
      }
    }
  }

  // MARK: Values

  /// A value inside a container at `depth`: scalars read in full, containers skipped;
  /// `poisoned` as in ``skipValue(depth:)``.
  private mutating func value(depth: Int) throws(Failure) -> (Value, poisoned: Bool) {
    guard !atEnd else { throw failure }
    switch current {
    case ascii("\""): return (.string(try string()), false)
    case ascii("{"): return (.object, try skipValue(depth: depth))
    case ascii("["): return (.array, try skipValue(depth: depth))
    case ascii("-"), ascii("0")...ascii("9"):
      let (number, fits) = try self.number()
      return (.number(number), !fits)
    default: return (try literal(), false)
    }
  }

  private mutating func literal() throws(Failure) -> Value {
    func matches(_ word: StaticString) -> Bool {
      let count = word.utf8CodeUnitCount
      guard index + count <= bytes.count else { return false }
      for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
      return true
    }
    let (value, length): (Value, Int)
    if matches("true") {
      (value, length) = (.bool(true), 4)
    } else if matches("false") {
      (value, length) = (.bool(false), 5)
    } else if matches("null") {
      (value, length) = (.null, 4)
    } else {
      throw failure
    }
    index += length
    return value
  }

  /// Checks and skips one value inside a container at `depth`, without recursion: a stack
  /// of the open containers, at most `maxDepth - depth` of them. Returns `true` when the
  /// value is *poisoned*: it holds, in a member no later member of the same name replaces,
  /// a number too large for a `Double` (which Foundation refuses once it converts it).
  private mutating func skipValue(depth: Int) throws(Failure) -> Bool {
    var open: [OpenContainer] = []
    while true {
      // A value starts here.
      guard !atEnd else { throw failure }
      var poisoned = false
      switch current {
      case ascii("{"), ascii("["):
        let isObject = current == ascii("{")
        guard depth + open.count + 1 <= maxDepth else { throw .tooDeep }
        open.append(OpenContainer(isObject: isObject))
        index += 1
        skipWhitespace()
        guard !atEnd else { throw failure }
        guard current == (isObject ? ascii("}") : ascii("]")) else {
          if isObject { try nextMember(of: &open[open.count - 1]) }
          continue
        }
        index += 1
        open.removeLast()
      case ascii("\""):
        try skipString()
      case ascii("-"), ascii("0")...ascii("9"):
        poisoned = try !numberEnd().fits
      default:
        _ = try literal()
      }
      // After a value: close containers or move to the next item.
      while true {
        guard !open.isEmpty else { return poisoned }
        let last = open.count - 1
        if poisoned {
          if open[last].isObject, let key = open[last].key {
            open[last].poisoned.add(name(key))
          } else {
            open[last].poisoned.add("")
          }
        }
        skipWhitespace()
        guard !atEnd else { throw failure }
        let closer = open[last].isObject ? ascii("}") : ascii("]")
        var closes = current == closer
        if !closes {
          guard current == ascii(",") else { throw failure }
          index += 1
          skipWhitespace()
          guard !atEnd else { throw failure }
          closes = current == closer  // one trailing comma
        }
        if closes {
          index += 1
          poisoned = open.removeLast().poisoned.any
          continue
        }
        if open[last].isObject { try nextMember(of: &open[last]) }
        break
      }
    }
  }

  /// A container being skipped: its kind, the name of the member being read (objects), and
  /// its poisoned members (for an array, any poisoned item poisons it).
  private struct OpenContainer {
    var isObject: Bool
    var key: KeySpan? = nil
    var poisoned = PoisonedMembers()
  }

  /// An object member's name and `:`, the cursor on the name's quote; leaves the cursor on
  /// the value.
  private mutating func nextMember(of container: inout OpenContainer) throws(Failure) {
    guard !atEnd, current == ascii("\"") else { throw failure }
    let key = try keySpan()
    container.key = key
    if container.poisoned.any { container.poisoned.replaced(by: name(key)) }
    skipWhitespace()
    guard !atEnd, current == ascii(":") else { throw failure }
    index += 1
    skipWhitespace()
  }

  // MARK: Names

  /// A member name as it stands in the text: its bytes between the quotes, and whether
  /// those need decoding (escapes) or Unicode comparison (non-ASCII) before matching.
  struct KeySpan {
    var start: Int
    var end: Int
    var plainASCII: Bool
  }

  private mutating func keySpan() throws(Failure) -> KeySpan {
    let start = index + 1
    let plain = try skipString()
    return KeySpan(start: start, end: index - 1, plainASCII: plain)
  }

  /// `true` when the name is `word`, compared as Swift strings are (canonical
  /// equivalence), as the keys of Foundation's dictionary are.
  private mutating func key(_ key: KeySpan, is word: StaticString) -> Bool {
    if key.plainASCII {
      let count = word.utf8CodeUnitCount
      guard key.end - key.start == count else { return false }
      for offset in 0..<count where bytes[key.start + offset] != word.utf8Start[offset] { return false }
      return true
    }
    return decodedKey(key) == word.description
  }

  /// A member's name as a string.
  private mutating func name(_ key: KeySpan) -> String {
    if key.plainASCII {
      return String(decoding: UnsafeBufferPointer(rebasing: bytes[key.start..<key.end]), as: UTF8.self)
    }
    return decodedKey(key)
  }

  private mutating func decodedKey(_ key: KeySpan) -> String {
    let saved = index
    defer { index = saved }
    index = key.start - 1
    // The name was checked when it was skipped, so this cannot fail.
    return (try? string()) ?? ""
  }

  private mutating func topKey(_ key: KeySpan) -> TopKey {
    if self.key(key, is: "type") { return .type }
    if self.key(key, is: "data") { return .data }
    return .other
  }

  private mutating func dataKey(_ key: KeySpan) -> DataKey {
    if self.key(key, is: "text") { return .text }
    if self.key(key, is: "ref") { return .ref }
    if self.key(key, is: "name") { return .name }
    if self.key(key, is: "room") { return .room }
    if self.key(key, is: "since") { return .since }
    if self.key(key, is: "epoch") { return .epoch }
    if self.key(key, is: "action") { return .action }
    if self.key(key, is: "limit") { return .limit }
    if self.key(key, is: "token") { return .token }
    if self.key(key, is: "active") { return .active }
    return .other
  }

  // MARK: Strings

  /// `"message"` or `"join"` when the cursor is on exactly that string (no escape), the
  /// cursor then after it; else `nil`, the cursor unmoved.
  private mutating func knownType() -> String? {
    func matches(_ word: StaticString) -> Bool {
      let count = word.utf8CodeUnitCount
      guard bytes.count - index >= count else { return false }
      for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
      return true
    }
    if matches(#""message""#) {
      index += 9
      return "message"
    }
    if matches(#""join""#) {
      index += 6
      return "join"
    }
    return nil
  }

  /// Checks and skips a string, the cursor on its opening quote, to after its closing
  /// one. Returns `true` when it holds only ASCII and no escape.
  @discardableResult
  private mutating func skipString() throws(Failure) -> Bool {
    index += 1
    var plain = true
    while true {
      guard !atEnd else { throw failure }
      let byte = current
      if byte == ascii("\"") {
        index += 1
        return plain
      }
      if byte < 0x20 { throw failure }
      if byte == ascii("\\") {
        plain = false
        _ = try escape()
        continue
      }
      if byte >= 0x80 { plain = false }
      index += 1
    }
  }

  /// A string's value, the cursor on its opening quote.
  private mutating func string() throws(Failure) -> String {
    let start = index + 1
    index = start
    // Fast path: no escape, so the value is the bytes themselves (valid UTF-8: the text is).
    index = JSONDialect.nextStop(in: bytes, from: index, lineSeparatorLead: false)
    guard !atEnd else { throw failure }
    if current == ascii("\"") {
      index += 1
      return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)]), as: UTF8.self)
    }
    if current < 0x20 { throw failure }
    var out = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<index]))
    while true {
      guard !atEnd else { throw failure }
      let byte = current
      if byte == ascii("\"") {
        index += 1
        return String(decoding: out, as: UTF8.self)
      }
      if byte < 0x20 { throw failure }
      if byte == ascii("\\") {
        let scalar = try escape()
        appendUTF8(scalar, to: &out)
        continue
      }
      out.append(byte)
      index += 1
    }
  }

  /// One escape, the cursor on its backslash, to after it; a surrogate pair is one escape.
  private mutating func escape() throws(Failure) -> Unicode.Scalar {
    index += 1
    guard !atEnd else { throw failure }
    let byte = current
    index += 1
    switch byte {
    case ascii("\""), ascii("\\"), ascii("/"): return Unicode.Scalar(byte)
    case ascii("b"): return "\u{8}"
    case ascii("f"): return "\u{c}"
    case ascii("n"): return "\n"
    case ascii("r"): return "\r"
    case ascii("t"): return "\t"
    case ascii("u"):
      let unit = try hex4()
      switch unit {
      case 0xD800...0xDBFF:
        guard index + 1 < bytes.count, bytes[index] == ascii("\\"), bytes[index + 1] == ascii("u") else {
          throw failure
        }
        index += 2
        let low = try hex4()
        guard (0xDC00...0xDFFF).contains(low) else { throw failure }
        let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
        guard let scalar = Unicode.Scalar(value) else { throw failure }
        return scalar
      case 0xDC00...0xDFFF:
        throw failure
      default:
        guard let scalar = Unicode.Scalar(unit) else { throw failure }
        return scalar
      }
    default:
      throw failure
    }
  }

  private mutating func hex4() throws(Failure) -> UInt16 {
    guard index + 4 <= bytes.count else { throw failure }
    var value: UInt16 = 0
    for _ in 0..<4 {
      let byte = current
      let digit: UInt8
      switch byte {
      case ascii("0")...ascii("9"): digit = byte - ascii("0")
      case ascii("a")...ascii("f"): digit = byte - ascii("a") + 10
      case ascii("A")...ascii("F"): digit = byte - ascii("A") + 10
      default: throw failure
      }
      value = value << 4 | UInt16(digit)
      index += 1
    }
    return value
  }

  private func appendUTF8(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
    UTF8.encode(scalar) { out.append($0) }
  }

  // MARK: Numbers

  private mutating func number() throws(Failure) -> (ClientFrameDecoder.Number, fits: Bool) {
    let start = index
    let (plainInteger, fits) = try numberEnd()
    let span = UnsafeBufferPointer(rebasing: bytes[start..<index])
    let text = String(decoding: span, as: UTF8.self)
    guard plainInteger else { return (ClientFrameDecoder.Number(text: text, integer: nil), fits) }
    var value: Int64 = 0
    for byte in span where byte != ascii("-") { value = value * 10 + Int64(byte - ascii("0")) }
    return (ClientFrameDecoder.Number(text: text, integer: span.first == ascii("-") ? -value : value), true)
  }

  /// Checks a number's grammar (JSON's), the cursor on its first byte, to after it.
  /// `plainInteger`: at most 15 digits, no fraction or exponent. `fits`: its value is a
  /// finite `Double` (Foundation refuses one that is not, if it keeps the value).
  private mutating func numberEnd() throws(Failure) -> (plainInteger: Bool, fits: Bool) {
    let start = index
    if current == ascii("-") { index += 1 }
    guard !atEnd, isDigit(current) else { throw failure }
    let digitsStart = index
    if current == ascii("0") {
      index += 1
      if !atEnd, isDigit(current) { throw failure }
    } else {
      while !atEnd, isDigit(current) { index += 1 }
    }
    let digits = index - digitsStart
    var plain = true
    if !atEnd, current == ascii(".") {
      plain = false
      index += 1
      guard !atEnd, isDigit(current) else { throw failure }
      while !atEnd, isDigit(current) { index += 1 }
    }
    if !atEnd, current == ascii("e") || current == ascii("E") {
      plain = false
      index += 1
      if !atEnd, current == ascii("+") || current == ascii("-") { index += 1 }
      guard !atEnd, isDigit(current) else { throw failure }
      while !atEnd, isDigit(current) { index += 1 }
    }
    if plain && digits <= 15 { return (true, true) }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    return (false, Double(text)?.isFinite ?? false)
  }

  // MARK: Bytes

  private mutating func skipWhitespace() {
    while !atEnd {
      switch current {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  private func isDigit(_ byte: UInt8) -> Bool { byte >= ascii("0") && byte <= ascii("9") }
}

/// The names of an object's poisoned members that no later member has replaced (compared
/// as Swift strings, as Foundation's dictionary compares them). Empty, and allocating
/// nothing, unless a number too large for a `Double` came up.
private struct PoisonedMembers {
  private var names: [String] = []

  var any: Bool { !names.isEmpty }

  mutating func add(_ name: String) { names.append(name) }

  /// A member named `name` starts: it replaces any earlier one of that name.
  mutating func replaced(by name: String) { names.removeAll { $0 == name } }
}

private func ascii(_ character: Unicode.Scalar) -> UInt8 { UInt8(ascii: character) }
