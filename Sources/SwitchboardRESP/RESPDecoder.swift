/// An incremental RESP2/RESP3 decoder: append bytes as they arrive, take values as they
/// complete.
///
/// ```swift
/// var decoder = RESPDecoder()
/// try decoder.append(bytes)              // a read: part of a value, or many values
/// while let value = try decoder.next() { … }
/// ```
///
/// A pure value type, no I/O. A value split anywhere across reads decodes the same as when
/// it arrives whole; aggregates are built as their elements arrive, so bytes already decoded
/// are not parsed again. Every length and count is checked against ``limits`` when its line
/// is read, before anything is allocated for it (see ``RESPLimits``). After an error the
/// decoder stays failed and rethrows it: close the connection.
public struct RESPDecoder: Sendable {
  /// The limits applied.
  public let limits: RESPLimits

  private var buffer: [UInt8] = []
  /// Index in `buffer` of the first byte not decoded yet.
  private var position = 0
  /// Stream offset of `buffer[0]` (bytes dropped by compaction), for error messages.
  private var dropped = 0
  /// Aggregates being filled, outermost first.
  private var stack: [Frame] = []
  /// Stream offset where the value on `stack` began (meaningful while `stack` is not empty).
  private var partialStart = 0
  private var failure: RESPError?

  private struct Frame: Sendable {
    enum Kind: Sendable { case array, map, set, push, attribute }
    var kind: Kind
    /// Elements still to come (a map's keys and values each count).
    var remaining: Int
    var items: [RESPValue]
  }

  /// One element read at `position`: a finished value, or the header of an aggregate.
  private enum Step {
    case value(RESPValue, end: Int)
    case open(Frame, end: Int)
  }

  /// A decoder with `limits` (the defaults unless given).
  public init(limits: RESPLimits = .default) {
    self.limits = limits
  }

  /// Bytes held: undecoded ones plus those of the value partly decoded (what
  /// ``RESPLimits/maxBufferedBytes`` bounds).
  public var bufferedByteCount: Int {
    (buffer.count - position) + (stack.isEmpty ? 0 : dropped + position - partialStart)
  }

  /// Adds bytes read from the stream.
  /// - Throws: ``RESPError/bufferFull`` when that would hold more than
  ///   ``RESPLimits/maxBufferedBytes`` (the bytes are not kept), or the decoder's earlier error.
  public mutating func append(_ bytes: UnsafeRawBufferPointer) throws(RESPError) {
    if let failure { throw failure }
    try reserve(bytes.count)
    buffer.append(contentsOf: bytes)
  }

  /// Adds bytes read from the stream (see ``append(_:)-(UnsafeRawBufferPointer)``).
  public mutating func append(_ bytes: [UInt8]) throws(RESPError) {
    if let failure { throw failure }
    try reserve(bytes.count)
    buffer.append(contentsOf: bytes)
  }

  private mutating func reserve(_ count: Int) throws(RESPError) {
    guard count <= limits.maxBufferedBytes - bufferedByteCount else {
      let error = RESPError.bufferFull.with(
        "more than \(limits.maxBufferedBytes) bytes buffered (\(bufferedByteCount) held, \(count) more)")
      failure = error
      throw error
    }
    // Drop what was decoded before growing, so the buffer holds only what it must.
    if position > 0 && (position == buffer.count || position >= 64 << 10) {
      dropped += position
      buffer.removeSubrange(0..<position)
      position = 0
    }
  }

  /// The next complete value, or `nil` when more bytes are needed.
  /// - Throws: ``RESPError`` for bytes that are not RESP or break a limit; the decoder then
  ///   stays failed.
  public mutating func next() throws(RESPError) -> RESPValue? {
    if let failure { throw failure }
    do throws(RESPError) {
      while let step = try element(at: position) {
        switch step {
        case .open(let frame, let end):
          guard stack.count < limits.maxDepth else {
            throw RESPError.tooDeep.with(
              "more than \(limits.maxDepth) nested aggregates at offset \(offset(position))")
          }
          if stack.isEmpty { partialStart = offset(position) }
          position = end
          stack.append(frame)
        case .value(let value, let end):
          position = end
          if let done = complete(value) {
            if position == buffer.count {
              dropped += position
              buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
              position = 0
            }
            return done
          }
        }
      }
      return nil
    } catch {
      failure = error
      throw error
    }
  }

  /// Adds `value` to the innermost open aggregate, closing every aggregate it completes;
  /// returns the top-level value once there is one.
  private mutating func complete(_ value: RESPValue) -> RESPValue? {
    var value = value
    while !stack.isEmpty {
      let last = stack.count - 1
      stack[last].items.append(value)
      stack[last].remaining -= 1
      guard stack[last].remaining == 0 else { return nil }
      value = Self.build(stack.removeLast())
    }
    return value
  }

  private static func build(_ frame: Frame) -> RESPValue {
    let items = frame.items
    switch frame.kind {
    case .array: return .array(items)
    case .set: return .set(items)
    case .push: return .push(items)
    case .map: return .map(pairs(items[...]))
    case .attribute: return .attribute(pairs(items.dropLast()), items[items.count - 1])
    }
  }

  private static func pairs(_ items: ArraySlice<RESPValue>) -> [RESPPair] {
    var pairs: [RESPPair] = []
    pairs.reserveCapacity(items.count / 2)
    var index = items.startIndex
    while index + 1 < items.endIndex {
      pairs.append(RESPPair(key: items[index], value: items[index + 1]))
      index += 2
    }
    return pairs
  }

  private func offset(_ index: Int) -> Int { dropped + index }

  // MARK: One element

  /// Reads the element starting at `start`; `nil` when its bytes are not all here yet.
  private func element(at start: Int) throws(RESPError) -> Step? {
    guard start < buffer.count else { return nil }
    let type = buffer[start]
    // An unknown type fails at once, without waiting for a line that may never come.
    guard Self.types.contains(type) else {
      throw RESPError.unknownType.with(
        "unknown type byte 0x\(String(type, radix: 16)) at offset \(offset(start))")
    }
    guard let lineEnd = try lineEnd(from: start + 1) else { return nil }
    let line = buffer[(start + 1)..<lineEnd]
    let end = lineEnd + 2
    switch type {
    case UInt8(ascii: "+"): return .value(.simpleString(String(decoding: line, as: UTF8.self)), end: end)
    case UInt8(ascii: "-"): return .value(.error(String(decoding: line, as: UTF8.self)), end: end)
    case UInt8(ascii: ":"):
      guard let value = Self.integer(line) else {
        throw RESPError.malformedInteger.with("malformed integer at offset \(offset(start))")
      }
      return .value(.integer(value), end: end)
    case UInt8(ascii: "$"), UInt8(ascii: "!"), UInt8(ascii: "="):
      return try blob(type: type, line: line, start: start, end: end)
    case UInt8(ascii: "*"), UInt8(ascii: "%"), UInt8(ascii: "~"), UInt8(ascii: ">"), UInt8(ascii: "|"):
      return try aggregate(type: type, line: line, start: start, end: end)
    case UInt8(ascii: "_"):
      guard line.isEmpty else {
        throw RESPError.malformedNull.with("malformed null at offset \(offset(start))")
      }
      return .value(.null, end: end)
    case UInt8(ascii: ","):
      guard let value = Self.double(line) else {
        throw RESPError.malformedDouble.with("malformed double at offset \(offset(start))")
      }
      return .value(.double(value), end: end)
    case UInt8(ascii: "#"):
      guard line.count == 1, line.first == UInt8(ascii: "t") || line.first == UInt8(ascii: "f") else {
        throw RESPError.malformedBoolean.with("malformed boolean at offset \(offset(start))")
      }
      return .value(.boolean(line.first == UInt8(ascii: "t")), end: end)
    case UInt8(ascii: "("):
      let digits = line.first == UInt8(ascii: "-") ? line.dropFirst() : line[...]
      guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
        throw RESPError.malformedBigNumber.with("malformed big number at offset \(offset(start))")
      }
      return .value(.bigNumber(String(decoding: line, as: UTF8.self)), end: end)
    default:
      throw RESPError.unknownType.with(
        "unknown type byte 0x\(String(type, radix: 16)) at offset \(offset(start))")
    }
  }

  /// Every type byte RESP2 and RESP3 define.
  private static let types = Set("+-:$*_,#(!=%~>|".utf8)

  /// A bulk string, bulk error or verbatim string: a length line, then that many bytes and CRLF.
  private func blob(type: UInt8, line: ArraySlice<UInt8>, start: Int, end: Int) throws(RESPError) -> Step? {
    let length = try length(line, start: start, nullable: type == UInt8(ascii: "$"))
    guard length >= 0 else { return .value(.null, end: end) }
    guard length <= limits.maxBulkLength else {
      throw RESPError.bulkTooLarge.with(
        "bulk of \(length) bytes at offset \(offset(start)), limit \(limits.maxBulkLength)")
    }
    guard buffer.count - end >= length + 2 else { return nil }
    guard buffer[end + length] == 0x0D, buffer[end + length + 1] == 0x0A else {
      throw RESPError.missingCRLF.with(
        "no CRLF after \(length) bytes of bulk data at offset \(offset(start))")
    }
    let data = Array(buffer[end..<(end + length)])
    let valueEnd = end + length + 2
    switch type {
    case UInt8(ascii: "!"): return .value(.bulkError(data), end: valueEnd)
    case UInt8(ascii: "="):
      guard data.count >= 4, data[3] == UInt8(ascii: ":") else {
        throw RESPError.malformedVerbatim.with("verbatim string without a format at offset \(offset(start))")
      }
      let format = String(decoding: data[0..<3], as: UTF8.self)
      return .value(.verbatimString(format: format, text: Array(data[4...])), end: valueEnd)
    default: return .value(.bulkString(data), end: valueEnd)
    }
  }

  /// The header of an aggregate; an empty one is a finished value.
  private func aggregate(type: UInt8, line: ArraySlice<UInt8>, start: Int, end: Int) throws(RESPError) -> Step
  {
    let count = try length(line, start: start, nullable: type == UInt8(ascii: "*"))
    guard count >= 0 else { return .value(.null, end: end) }
    guard count <= limits.maxAggregateCount else {
      throw RESPError.tooManyElements.with(
        "aggregate of \(count) elements at offset \(offset(start)), limit \(limits.maxAggregateCount)")
    }
    let kind: Frame.Kind
    var elements = count
    switch type {
    case UInt8(ascii: "%"):
      kind = .map
      elements = count * 2
    case UInt8(ascii: "|"):
      kind = .attribute
      elements = count * 2 + 1
    case UInt8(ascii: "~"): kind = .set
    case UInt8(ascii: ">"): kind = .push
    default: kind = .array
    }
    if elements == 0 {
      switch kind {
      case .map: return .value(.map([]), end: end)
      case .set: return .value(.set([]), end: end)
      case .push: return .value(.push([]), end: end)
      default: return .value(.array([]), end: end)
      }
    }
    // The announced count is only a claim: reserve no more than a small start.
    var items: [RESPValue] = []
    items.reserveCapacity(min(elements, 16))
    return .open(Frame(kind: kind, remaining: elements, items: items), end: end)
  }

  /// A length or count: decimal digits, or `-1` (null) where RESP2 allows it.
  private func length(_ line: ArraySlice<UInt8>, start: Int, nullable: Bool) throws(RESPError) -> Int {
    if line.first == UInt8(ascii: "?") {
      throw RESPError.unsupportedStreaming.with("streamed value at offset \(offset(start))")
    }
    if nullable, line.elementsEqual([UInt8(ascii: "-"), UInt8(ascii: "1")]) { return -1 }
    guard !line.isEmpty, line.count <= 18, line.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
      throw RESPError.malformedLength.with("malformed length at offset \(offset(start))")
    }
    var value = 0
    for digit in line { value = value * 10 + Int(digit - 0x30) }
    return value
  }

  /// The index of the CR ending the line that starts at `start`; `nil` when the line is not
  /// all here yet.
  private func lineEnd(from start: Int) throws(RESPError) -> Int? {
    var index = start
    let limit = min(buffer.count, start + limits.maxLineLength + 1)
    while index < limit {
      switch buffer[index] {
      case 0x0D:
        guard index + 1 < buffer.count else { return nil }
        guard buffer[index + 1] == 0x0A else {
          throw RESPError.invalidLine.with("CR without LF at offset \(offset(index))")
        }
        return index
      case 0x0A:
        throw RESPError.invalidLine.with("LF without CR at offset \(offset(index))")
      default:
        index += 1
      }
    }
    if index - start > limits.maxLineLength {
      throw RESPError.lineTooLong.with(
        "line at offset \(offset(start)) longer than \(limits.maxLineLength) bytes")
    }
    return nil
  }

  // MARK: Numbers

  /// A decimal `Int64` with an optional sign; `nil` for anything else (or an overflow).
  static func integer(_ line: ArraySlice<UInt8>) -> Int64? {
    var digits = line[...]
    var negative = false
    if let first = digits.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
      negative = first == UInt8(ascii: "-")
      digits = digits.dropFirst()
    }
    guard !digits.isEmpty, digits.count <= 19 else { return nil }
    var magnitude: UInt64 = 0
    for digit in digits {
      guard digit >= 0x30 && digit <= 0x39 else { return nil }
      magnitude = magnitude * 10 + UInt64(digit - 0x30)  // 19 digits cannot overflow UInt64
    }
    if negative {
      guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
      return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
    }
    guard magnitude <= UInt64(Int64.max) else { return nil }
    return Int64(magnitude)
  }

  /// A RESP3 double: `[sign] digits [. digits] [e|E [sign] digits]`, `inf`, `-inf` or `nan`.
  /// Checked by hand first: Swift's `Double(String)` also takes hex and `infinity`.
  static func double(_ line: ArraySlice<UInt8>) -> Double? {
    let text = String(decoding: line, as: UTF8.self)
    switch text {
    case "inf", "+inf": return .infinity
    case "-inf": return -.infinity
    case "nan", "-nan": return .nan
    default: break
    }
    var bytes = line[...]
    func digits() -> Int {
      let count = bytes.prefix(while: { $0 >= 0x30 && $0 <= 0x39 }).count
      bytes = bytes.dropFirst(count)
      return count
    }
    if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
      bytes = bytes.dropFirst()
    }
    var mantissa = digits()
    if bytes.first == UInt8(ascii: ".") {
      bytes = bytes.dropFirst()
      mantissa += digits()
    }
    guard mantissa > 0 else { return nil }
    if let first = bytes.first, first == UInt8(ascii: "e") || first == UInt8(ascii: "E") {
      bytes = bytes.dropFirst()
      if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
        bytes = bytes.dropFirst()
      }
      guard digits() > 0 else { return nil }
    }
    guard bytes.isEmpty else { return nil }
    return Double(text)
  }
}

extension RESPDecoder {
  /// Decodes every value in `chunks`, appended one after another (for tools and tests, where
  /// the bytes are all at hand): the values before the end or the first error, and that error.
  public static func decodeAll(
    _ chunks: some Sequence<[UInt8]>, limits: RESPLimits = .default
  ) -> (values: [RESPValue], error: RESPError?) {
    var decoder = RESPDecoder(limits: limits)
    var values: [RESPValue] = []
    do {
      for chunk in chunks {
        try decoder.append(chunk)
        while let value = try decoder.next() { values.append(value) }
      }
    } catch {
      return (values, error)
    }
    return (values, nil)
  }
}
