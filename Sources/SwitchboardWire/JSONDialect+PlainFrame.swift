/// A room's `message` frame written in one pass into storage of its exact size (an array,
/// or the bytes a WebSocket frame is sent from), for the common message whose strings need
/// no escape.
extension JSONDialect {
  /// The bytes ``encodedBytes(_:headerRoom:)`` makes for `m`, when none of its room,
  /// text, author and colour has a byte to escape (a quote, a backslash, a control, U+2028
  /// or U+2029; other characters led by E2, curly quotes say, are copied); `nil`
  /// otherwise. The size is known
  /// before the first byte (``plainMessageFrameCount(_:)``), so the array is made once at
  /// that size and each piece is one pass into it (``writePlainMessageFrame(_:into:)``). A
  /// string found to need an escape ends the pass; the caller then builds the frame piece
  /// by piece.
  package static func plainMessageFrame(_ m: ChatMessage, headerRoom: Int) -> [UInt8]? {
    let count = plainMessageFrameCount(m)
    var plain = false
    let bytes = [UInt8](unsafeUninitializedCapacity: headerRoom + count) { buffer, initialized in
      let all = UnsafeMutableRawBufferPointer(buffer)
      all.baseAddress!.initializeMemory(as: UInt8.self, repeating: 0, count: headerRoom)
      plain = writePlainMessageFrame(m, into: UnsafeMutableRawBufferPointer(rebasing: all[headerRoom...]))
      initialized = plain ? headerRoom + count : 0
    }
    return plain ? bytes : nil
  }

  /// The size of `m`'s `message` frame if none of its strings needs an escape (see
  /// ``plainMessageFrame(_:headerRoom:)``): the literals, the digits, the strings' UTF-8
  /// counts. The storage to give ``writePlainMessageFrame(_:into:)``.
  package static func plainMessageFrameCount(_ m: ChatMessage) -> Int {
    plainMessageFrameSize(m).payload
  }

  /// A `message` frame's size (``plainMessageFrameCount(_:)``) and the digits of its id
  /// and time, counted on the way: for ``writePlainMessageFrame(_:size:into:)``, which
  /// then does not count them again.
  package struct PlainFrameSize {
    /// The frame's bytes.
    package let payload: Int
    let idDigits: Int
    let timeDigits: Int
  }

  /// `m`'s ``PlainFrameSize``.
  @inline(__always)
  package static func plainMessageFrameSize(_ m: ChatMessage) -> PlainFrameSize {
    let idDigits = decimalCount(m.id)
    let timeDigits = decimalCount(m.time)
    let payload =
      PlainMessageLiterals.count(isAction: m.isAction) + idDigits + timeDigits + m.room.utf8.count + m.textUTF8Count
      + m.author.utf8.count + m.color.utf8.count
    return PlainFrameSize(payload: payload, idDigits: idDigits, timeDigits: timeDigits)
  }

  /// Writes `m`'s `message` frame into `out`, whose size is ``plainMessageFrameCount(_:)``,
  /// in one pass: the literals and the digits, and each string copied as it is checked
  /// (``copyIfPlain(_:to:)``). `false` when a string needs an escape: the pass stops there
  /// and `out` is not a frame. The same bytes as the piece-by-piece builder otherwise
  /// (`JSONFrameEquivalenceTests`).
  package static func writePlainMessageFrame(_ m: ChatMessage, into out: UnsafeMutableRawBufferPointer) -> Bool {
    writePlainMessageFrame(m, size: plainMessageFrameSize(m), into: out)
  }

  /// ``plainMessageFrameSize(_:)`` of the message at `m`, read where it lies (in a
  /// batch's buffer, say): a message passed from there to a function of another module is
  /// copied first (a retain and a release a message, twice a batch frame).
  package static func plainMessageFrameSize(at m: UnsafePointer<ChatMessage>) -> PlainFrameSize {
    plainMessageFrameSize(m.pointee)
  }

  /// ``writePlainMessageFrame(_:size:into:)`` of the message at `m`, read where it lies
  /// (see ``plainMessageFrameSize(at:)``).
  package static func writePlainMessageFrame(
    at m: UnsafePointer<ChatMessage>, size: PlainFrameSize, into out: UnsafeMutableRawBufferPointer
  ) -> Bool {
    writePlainMessageFrame(m.pointee, size: size, into: out)
  }

  /// ``writePlainMessageFrame(_:into:)`` with `m`'s size already counted
  /// (``plainMessageFrameSize(_:)``).
  @inline(__always)
  package static func writePlainMessageFrame(
    _ m: ChatMessage, size: PlainFrameSize, into out: UnsafeMutableRawBufferPointer
  ) -> Bool {
    var writer = PlainWriter(base: out.baseAddress!.assumingMemoryBound(to: UInt8.self))
    writer.literal(PlainMessageLiterals.opening)
    writer.decimal(m.id, digits: size.idDigits)
    // Strings their makers found plain are copied unchecked, any other checked as copied.
    let stringsArePlain = m.stringsNeedNoJSONEscape
    writer.literal(PlainMessageLiterals.room)
    guard writer.string(m.room, known: stringsArePlain) else { return false }
    writer.literal(PlainMessageLiterals.time)
    writer.decimal(m.time, digits: size.timeDigits)
    writer.literal(PlainMessageLiterals.text)
    // A text its reader found plain is copied unchecked; any other is checked as copied.
    if m.textNeedsNoJSONEscape {
      m.withTextUTF8 { writer.copy($0) }
    } else {
      guard m.withTextUTF8({ writer.plain($0) }) else { return false }
    }
    writer.literal(PlainMessageLiterals.author)
    guard writer.string(m.author, known: stringsArePlain) else { return false }
    writer.literal(PlainMessageLiterals.color)
    guard writer.string(m.color, known: stringsArePlain) else { return false }
    writer.literal(PlainMessageLiterals.closing(isAction: m.isAction))
    precondition(writer.at == out.count, "writePlainMessageFrame: \(writer.at) bytes written, \(out.count) counted")
    return true
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

  /// Digits (and sign) of `value` in decimal: a few comparisons, not one division a digit
  /// (a message's time has 13 digits; the frame's size and its writer both ask).
  static func decimalCount(_ value: UInt64) -> Int {
    if value < 100_000_000 {
      if value < 10_000 { return value < 100 ? (value < 10 ? 1 : 2) : (value < 1_000 ? 3 : 4) }
      return value < 1_000_000 ? (value < 100_000 ? 5 : 6) : (value < 10_000_000 ? 7 : 8)
    }
    if value < 1_000_000_000_000 {
      return value < 10_000_000_000 ? (value < 1_000_000_000 ? 9 : 10) : (value < 100_000_000_000 ? 11 : 12)
    }
    if value < 10_000_000_000_000_000 {
      return value < 100_000_000_000_000
        ? (value < 10_000_000_000_000 ? 13 : 14) : (value < 1_000_000_000_000_000 ? 15 : 16)
    }
    return value < 1_000_000_000_000_000_000
      ? (value < 100_000_000_000_000_000 ? 17 : 18) : (value < 10_000_000_000_000_000_000 ? 19 : 20)
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

    /// `00` to `99`, two bytes each: the digits are written two at a time, from the last.
    private static var digitPairs: StaticString {
      """
      0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849\
      5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899
      """
    }

    /// `value` in decimal, `count` digits long (``JSONDialect/decimalCount(_:)``).
    mutating func decimal(_ value: UInt64, digits count: Int) {
      // The bytes are plain `UInt8`s, so assigning them initialises them.
      let pairs = Self.digitPairs.utf8Start
      var rest = value
      var end = at &+ count
      while rest >= 100 {
        let pair = Int(truncatingIfNeeded: rest % 100) &* 2
        rest /= 100
        end &-= 2
        base[end] = pairs[pair]
        base[end &+ 1] = pairs[pair &+ 1]
      }
      if rest >= 10 {
        let pair = Int(truncatingIfNeeded: rest) &* 2
        base[at] = pairs[pair]
        base[at &+ 1] = pairs[pair &+ 1]
      } else {
        base[at] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
      }
      at &+= count
    }

    /// `value` in decimal, `count` characters long, its sign included
    /// (``JSONDialect/decimalCount(_:)``).
    mutating func decimal(_ value: Int64, digits count: Int) {
      if value < 0 {
        (base + at).initialize(to: UInt8(ascii: "-"))
        at += 1
        decimal(value.magnitude, digits: count - 1)
      } else {
        decimal(value.magnitude, digits: count)
      }
    }

    /// Copies `s` when nothing in it needs an escape; `false` otherwise (what was copied
    /// by then is not to be used).
    mutating func plain(_ s: String) -> Bool {
      s.utf8.withContiguousStorageIfAvailable { plain($0) } ?? false
    }

    /// Copies `s`: unchecked when it is `known` to need no escape, else as ``plain(_:)``.
    /// (A string without contiguous UTF-8, which native strings always have, is left to
    /// the builder, as ``plain(_:)`` leaves it.)
    mutating func string(_ s: String, known: Bool) -> Bool {
      guard known else { return plain(s) }
      return s.utf8.withContiguousStorageIfAvailable { copy($0) } != nil
    }

    /// Copies bytes known to need no escape.
    mutating func copy(_ bytes: UnsafeBufferPointer<UInt8>) {
      if let source = bytes.baseAddress { (base + at).initialize(from: source, count: bytes.count) }
      at &+= bytes.count
    }

    /// ``plain(_:)`` of UTF-8 bytes.
    mutating func plain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
      guard JSONDialect.copyIfPlain(bytes, to: base + at) else { return false }
      at &+= bytes.count
      return true
    }
  }
}
