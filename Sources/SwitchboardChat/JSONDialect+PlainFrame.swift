/// A room's `message` frame written in one pass into storage of its exact size (an array,
/// or the bytes a WebSocket frame is sent from), for the common message whose strings need
/// no escape.
extension JSONDialect {
  /// The bytes ``encodedBytes(_:headerRoom:)`` makes for `m`, when none of its room,
  /// text, author and colour has a byte to escape (a quote, a backslash, a control, or the
  /// E2 lead byte of U+2028/U+2029 and its neighbours); `nil` otherwise. The size is known
  /// before the first byte (``plainMessageFrameCount(_:)``), so the array is made once at
  /// that size and each piece is one copy into it (``writePlainMessageFrame(_:into:)``). A
  /// string that needs an escape is found before anything is allocated; the caller then
  /// builds the frame piece by piece.
  package static func plainMessageFrame(_ m: ChatMessage, headerRoom: Int) -> [UInt8]? {
    guard let count = plainMessageFrameCount(m) else { return nil }
    return [UInt8](unsafeUninitializedCapacity: headerRoom + count) { buffer, initialized in
      let all = UnsafeMutableRawBufferPointer(buffer)
      all.baseAddress!.initializeMemory(as: UInt8.self, repeating: 0, count: headerRoom)
      writePlainMessageFrame(m, into: UnsafeMutableRawBufferPointer(rebasing: all[headerRoom...]))
      initialized = headerRoom + count
    }
  }

  /// The size of `m`'s `message` frame when none of its strings needs an escape (see
  /// ``plainMessageFrame(_:headerRoom:)``), `nil` otherwise: the storage to give
  /// ``writePlainMessageFrame(_:into:)``, which then writes the frame in one pass, each
  /// piece one copy. The strings are checked here, eight bytes at a time, so the writer
  /// only copies.
  package static func plainMessageFrameCount(_ m: ChatMessage) -> Int? {
    var size = PlainMessageLiterals.count(isAction: m.isAction) + decimalCount(m.id) + decimalCount(m.time)
    guard let room = plainCount(m.room), let text = plainCount(m.text), let author = plainCount(m.author),
      let color = plainCount(m.color)
    else { return nil }
    size += room + text + author + color
    return size
  }

  /// Writes `m`'s `message` frame into `out`, whose size is ``plainMessageFrameCount(_:)``
  /// (so none of `m`'s strings needs an escape): the literals, the digits and the strings,
  /// each one copy, with nothing checked again. The same bytes as the piece-by-piece
  /// builder (`JSONFrameEquivalenceTests`).
  package static func writePlainMessageFrame(_ m: ChatMessage, into out: UnsafeMutableRawBufferPointer) {
    var writer = PlainWriter(base: out.baseAddress!.assumingMemoryBound(to: UInt8.self))
    writer.literal(PlainMessageLiterals.opening)
    writer.decimal(m.id)
    writer.literal(PlainMessageLiterals.room)
    writer.copy(m.room)
    writer.literal(PlainMessageLiterals.time)
    writer.decimal(m.time)
    writer.literal(PlainMessageLiterals.text)
    writer.copy(m.text)
    writer.literal(PlainMessageLiterals.author)
    writer.copy(m.author)
    writer.literal(PlainMessageLiterals.color)
    writer.copy(m.color)
    writer.literal(PlainMessageLiterals.closing(isAction: m.isAction))
    precondition(writer.at == out.count, "writePlainMessageFrame: \(writer.at) bytes written, \(out.count) counted")
  }

  /// The UTF-8 count of `s` when nothing in it needs an escape in a JSON string, `nil`
  /// otherwise.
  private static func plainCount(_ s: String) -> Int? {
    let count = s.utf8.withContiguousStorageIfAvailable { bytes -> Int? in
      JSONDialect.nextStop(in: bytes, from: 0, lineSeparatorLead: true) == bytes.count ? bytes.count : nil
    }
    return count ?? nil
  }

  /// The literal pieces of a `message` frame, around its values.
  private enum PlainMessageLiterals {
    // Computed, not stored: a literal, with no lazy global to initialise.
    static var opening: StaticString { #"{"type":"message","data":{"id":"# }
    static var room: StaticString { #","room":""# }
    static var time: StaticString { #"","time":"# }
    static var text: StaticString { #","text":""# }
    static var author: StaticString { #"","author":""# }
    static var color: StaticString { #"","color":""# }

    static func closing(isAction: Bool) -> StaticString { isAction ? #"","action":true}}"# : #""}}"# }

    /// The bytes of all the literals.
    static func count(isAction: Bool) -> Int {
      opening.utf8CodeUnitCount + room.utf8CodeUnitCount + time.utf8CodeUnitCount + text.utf8CodeUnitCount
        + author.utf8CodeUnitCount + color.utf8CodeUnitCount + closing(isAction: isAction).utf8CodeUnitCount
    }
  }

  /// Digits (and sign) of `value` in decimal.
  static func decimalCount(_ value: UInt64) -> Int {
    var n = 1
    var rest = value
    while rest >= 10 {
      rest /= 10
      n += 1
    }
    return n
  }

  static func decimalCount(_ value: Int64) -> Int {
    decimalCount(value.magnitude) + (value < 0 ? 1 : 0)
  }

  /// A cursor into the storage ``writePlainMessageFrame(_:into:)`` fills; it writes only
  /// within the size counted for it.
  private struct PlainWriter {
    let base: UnsafeMutablePointer<UInt8>
    var at = 0

    init(base: UnsafeMutablePointer<UInt8>) { self.base = base }

    mutating func literal(_ s: StaticString) {
      (base + at).initialize(from: s.utf8Start, count: s.utf8CodeUnitCount)
      at += s.utf8CodeUnitCount
    }

    mutating func decimal(_ value: UInt64) {
      let count = JSONDialect.decimalCount(value)
      var rest = value
      for i in stride(from: at + count - 1, through: at, by: -1) {
        (base + i).initialize(to: UInt8(ascii: "0") + UInt8(rest % 10))
        rest /= 10
      }
      at += count
    }

    mutating func decimal(_ value: Int64) {
      if value < 0 {
        (base + at).initialize(to: UInt8(ascii: "-"))
        at += 1
      }
      decimal(value.magnitude)
    }

    /// Copies `s`, which ``plainMessageFrameCount(_:)`` found needs no escape.
    mutating func copy(_ s: String) {
      let copied: Void? = s.utf8.withContiguousStorageIfAvailable { bytes in
        if let source = bytes.baseAddress { (base + at).initialize(from: source, count: bytes.count) }
        at += bytes.count
      }
      precondition(copied != nil, "writePlainMessageFrame: a string without contiguous UTF-8")
    }
  }
}
