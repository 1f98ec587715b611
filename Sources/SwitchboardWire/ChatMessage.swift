/// One chat message as kept in history and delivered to every dialect.
///
/// A value like any other, but a cheap one to copy: its three strings and the bytes of its
/// text live in one shared, immutable box — a single allocation, the text's UTF-8 stored in
/// the box's tail — so a copy (into a history ring, an event, a task) retains one reference,
/// and a message costs one allocation and one free. Setting one of the strings gives the
/// message a box of its own. Read the text's bytes in place with ``withTextUTF8(_:)``;
/// ``text`` makes a `String` of them each time it is read.
public struct ChatMessage: Sendable, Hashable {
  /// Per-room sequence number: 1, 2, 3, … with no gaps.
  public var id: UInt64
  /// Server time in milliseconds since the Unix epoch.
  public var time: Int64
  /// `true` for `/me` actions (`* bob waves`).
  @inlinable public var isAction: Bool {
    get { flags & Self.actionFlag != 0 }
    set { set(Self.actionFlag, newValue) }
  }
  /// `true` when the text is known to hold no byte a JSON string escapes (no `"`, `\`,
  /// control, U+2028 or U+2029): the JSON protocol's frame writer then
  /// copies it as it is, unchecked. Only a reader that checked the bytes says so (the
  /// canonical message frame's scan, ``ClientFrame/canonicalMessageParts(_:)``); every
  /// other message, and one whose text is set, is checked as it is written. Not part of
  /// the message's value (equality and hash leave it out).
  package var textNeedsNoJSONEscape: Bool { flags & Self.textPlainFlag != 0 }
  /// The same for ``room``, ``author`` and ``color`` together: the hub says so for a room
  /// and a name it checked once, when the room was made and the member named (the colours
  /// of the hub's palette need none); setting any of the three clears it.
  package var stringsNeedNoJSONEscape: Bool { flags & Self.stringsPlainFlag != 0 }
  // The three in one byte: a message is copied often (into the ring, the store, an
  // event, a batch), and one byte is one move; three `Bool`s were three.
  @usableFromInline var flags: UInt8 = 0
  @usableFromInline static var actionFlag: UInt8 { 1 }
  static var textPlainFlag: UInt8 { 2 }
  static var stringsPlainFlag: UInt8 { 4 }
  @inlinable mutating func set(_ flag: UInt8, _ on: Bool) { flags = on ? flags | flag : flags & ~flag }
  // (`ManagedBuffer` is not `Sendable`, so neither is its subclass to the checker; the
  // box is never changed after it is made, so sharing it between threads is safe.)
  @usableFromInline nonisolated(unsafe) var storage: Storage

  /// The room it was sent to.
  public var room: String {
    get { storage.room }
    set {
      storage = withTextUTF8 { Storage.make(room: newValue, author: author, color: color, text: $0) }
      set(Self.stringsPlainFlag, false)
    }
  }
  /// The author's name.
  public var author: String {
    get { storage.author }
    set {
      storage = withTextUTF8 { Storage.make(room: room, author: newValue, color: color, text: $0) }
      set(Self.stringsPlainFlag, false)
    }
  }
  /// The author's colour (a CSS colour name).
  public var color: String {
    get { storage.color }
    set {
      storage = withTextUTF8 { Storage.make(room: room, author: author, color: newValue, text: $0) }
      set(Self.stringsPlainFlag, false)
    }
  }
  /// The text (a new `String` of the stored UTF-8 at each read: on a hot path, use
  /// ``withTextUTF8(_:)`` and ``textUTF8Count``).
  public var text: String {
    get { withTextUTF8 { String(decoding: $0, as: UTF8.self) } }
    set {
      storage = Storage.make(room: room, author: author, color: color, text: newValue)
      set(Self.textPlainFlag, false)
    }
  }

  /// The UTF-8 byte count of ``text``.
  @inlinable public var textUTF8Count: Int { storage.textCount }

  /// Calls `body` with the UTF-8 of ``text``, in place (no copy, and no reference returned
  /// to release); the bytes are valid only inside `body`. (Inlinable, so the dialects in
  /// other modules call it specialized, not through the generic entry point.)
  @inlinable
  public func withTextUTF8<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
    try storage.withUnsafeMutablePointers { fields, elements throws(E) in
      try body(UnsafeBufferPointer(start: elements, count: fields.pointee.textCount))
    }
  }

  /// A message `id` of `room`, sent at `time` (milliseconds since the Unix epoch) by
  /// `author`, shown in `color`; `isAction` for a `/me` action.
  public init(
    id: UInt64, room: String, time: Int64, author: String, color: String, text: String, isAction: Bool = false
  ) {
    self.id = id
    self.time = time
    flags = isAction ? Self.actionFlag : 0
    storage = Storage.make(room: room, author: author, color: color, text: text)
  }

  /// A message whose text is `textUTF8`, copied into the message: bytes the caller has
  /// already checked to be UTF-8 (a WebSocket text frame the decoder validated), so no
  /// `String` is made and nothing is checked again. `textNeedsNoJSONEscape` and
  /// `stringsNeedNoJSONEscape`: the caller found no byte that a JSON string escapes in the
  /// text, and in the room, author and colour (see ``textNeedsNoJSONEscape``).
  package init(
    id: UInt64, room: String, time: Int64, author: String, color: String, validatedUTF8 textUTF8: UnsafeRawBufferPointer,
    isAction: Bool = false, textNeedsNoJSONEscape: Bool = false, stringsNeedNoJSONEscape: Bool = false
  ) {
    self.id = id
    self.time = time
    flags =
      (isAction ? Self.actionFlag : 0) | (textNeedsNoJSONEscape ? Self.textPlainFlag : 0)
      | (stringsNeedNoJSONEscape ? Self.stringsPlainFlag : 0)
    storage = Storage.make(
      room: room, author: author, color: color, text: textUTF8.assumingMemoryBound(to: UInt8.self))
  }

  public static func == (a: ChatMessage, b: ChatMessage) -> Bool {
    a.id == b.id && a.time == b.time && a.isAction == b.isAction
      && (a.storage === b.storage
        || (a.room == b.room && a.author == b.author && a.color == b.color
          && a.withTextUTF8 { x in b.withTextUTF8 { y in x.elementsEqual(y) } }))
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(id)
    hasher.combine(room)
    hasher.combine(time)
    hasher.combine(author)
    hasher.combine(color)
    withTextUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    hasher.combine(isAction)
  }

  /// What the box holds besides the text's bytes.
  @usableFromInline struct Header {
    let room: String
    let author: String
    let color: String
    /// The text's UTF-8 byte count (the tail may have room for more).
    @usableFromInline let textCount: Int
  }

  /// The strings of a message and its text's UTF-8 in the tail, never changed once made
  /// (so shared copies stay equal, and the box is safe to share between threads).
  @usableFromInline final class Storage: ManagedBuffer<Header, UInt8> {
    // The header's fields, read through its pointer: `header` is a class's `var`, and
    // each read of it would be an exclusivity check at run time (~76 instructions).
    var room: String { withUnsafeMutablePointerToHeader { $0.pointee.room } }
    var author: String { withUnsafeMutablePointerToHeader { $0.pointee.author } }
    var color: String { withUnsafeMutablePointerToHeader { $0.pointee.color } }
    @inlinable var textCount: Int { withUnsafeMutablePointerToHeader { $0.pointee.textCount } }

    static func make(room: String, author: String, color: String, text: UnsafeBufferPointer<UInt8>) -> Storage {
      let count = text.count
      let buffer = Storage.create(minimumCapacity: count) { _ in
        Header(room: room, author: author, color: color, textCount: count)
      }
      if count > 0 {
        buffer.withUnsafeMutablePointerToElements { $0.initialize(from: text.baseAddress!, count: count) }
      }
      return unsafeDowncast(buffer, to: Storage.self)
    }

    static func make(room: String, author: String, color: String, text: String) -> Storage {
      var text = text
      return text.withUTF8 { make(room: room, author: author, color: color, text: $0) }
    }
  }
}
