/// A room's `message` frame written in one pass into an array of its exact size, for the
/// common message whose strings need no escape.
extension JSONDialect {
  /// The bytes ``encodedBytes(_:headerRoom:)`` makes for `m`, when none of its room,
  /// text, author and colour has a byte to escape (a quote, a backslash, a control, or the
  /// E2 lead byte of U+2028/U+2029 and its neighbours); `nil` otherwise. The size is known
  /// before the first byte (the strings' UTF-8 counts, the literals, the digits), so the
  /// array is made once at that size and each piece is one copy into it. A string found
  /// to need an escape ends the pass; the caller then builds the frame piece by piece.
  package static func plainMessageFrame(_ m: ChatMessage, headerRoom: Int) -> [UInt8]? {
    let opening: StaticString = #"{"type":"message","data":{"id":"#
    let room: StaticString = #","room":""#
    let time: StaticString = #"","time":"#
    let text: StaticString = #","text":""#
    let author: StaticString = #"","author":""#
    let color: StaticString = #"","color":""#
    let closing: StaticString = m.isAction ? #"","action":true}}"# : #""}}"#
    let literals =
      opening.utf8CodeUnitCount + room.utf8CodeUnitCount + time.utf8CodeUnitCount + text.utf8CodeUnitCount
      + author.utf8CodeUnitCount + color.utf8CodeUnitCount + closing.utf8CodeUnitCount
    let size =
      headerRoom + literals + decimalCount(m.id) + decimalCount(m.time) + m.room.utf8.count + m.text.utf8.count
      + m.author.utf8.count + m.color.utf8.count
    var plain = false
    let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
      var out = PlainWriter(base: buffer.baseAddress!)
      out.zeros(headerRoom)
      out.literal(opening)
      out.decimal(m.id)
      out.literal(room)
      guard out.plain(m.room) else { return }
      out.literal(time)
      out.decimal(m.time)
      out.literal(text)
      guard out.plain(m.text) else { return }
      out.literal(author)
      guard out.plain(m.author) else { return }
      out.literal(color)
      guard out.plain(m.color) else { return }
      out.literal(closing)
      precondition(out.at == size, "plainMessageFrame: \(out.at) bytes written, \(size) counted")
      count = size
      plain = true
    }
    return plain ? bytes : nil
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

  /// A cursor into the array ``plainMessageFrame(_:headerRoom:)`` fills; it writes only
  /// within the size counted for it.
  private struct PlainWriter {
    let base: UnsafeMutablePointer<UInt8>
    var at = 0

    init(base: UnsafeMutablePointer<UInt8>) { self.base = base }

    mutating func zeros(_ count: Int) {
      (base + at).initialize(repeating: 0, count: count)
      at += count
    }

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

    /// Copies `s` when nothing in it needs an escape; `false` (nothing copied) otherwise.
    mutating func plain(_ s: String) -> Bool {
      let copied = s.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
        guard JSONDialect.nextStop(in: bytes, from: 0, lineSeparatorLead: true) == bytes.count else { return false }
        if let source = bytes.baseAddress { (base + at).initialize(from: source, count: bytes.count) }
        at += bytes.count
        return true
      }
      return copied ?? false
    }
  }
}
