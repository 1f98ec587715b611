/// One chat message as kept in history and delivered to every dialect.
///
/// A value like any other, but a cheap one to copy: its four strings live in one shared,
/// immutable box, so a copy (into a history ring, an event, a task) retains one reference
/// instead of four. Setting one of the strings gives the message a box of its own.
public struct ChatMessage: Sendable, Hashable {
  /// Per-room sequence number: 1, 2, 3, … with no gaps.
  public var id: UInt64
  /// Server time in milliseconds since the Unix epoch.
  public var time: Int64
  /// `true` for `/me` actions (`* bob waves`).
  public var isAction: Bool
  private var strings: Strings

  /// The room it was sent to.
  public var room: String {
    get { strings.room }
    set { strings = Strings(room: newValue, author: author, color: color, text: text) }
  }
  /// The author's name.
  public var author: String {
    get { strings.author }
    set { strings = Strings(room: room, author: newValue, color: color, text: text) }
  }
  /// The author's colour (a CSS colour name).
  public var color: String {
    get { strings.color }
    set { strings = Strings(room: room, author: author, color: newValue, text: text) }
  }
  /// The text.
  public var text: String {
    get { strings.text }
    set { strings = Strings(room: room, author: author, color: color, text: newValue) }
  }

  /// The UTF-8 byte count of ``text``.
  public var textUTF8Count: Int { strings.text.utf8.count }

  /// Calls `body` with the UTF-8 of ``text``, in place when the string is stored
  /// contiguously (a native string: no copy, and no reference returned to release).
  public func withTextUTF8(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
    if strings.text.utf8.withContiguousStorageIfAvailable(body) == nil {
      var copy = strings.text
      copy.withUTF8(body)
    }
  }

  public init(
    id: UInt64, room: String, time: Int64, author: String, color: String, text: String, isAction: Bool = false
  ) {
    self.id = id
    self.time = time
    self.isAction = isAction
    strings = Strings(room: room, author: author, color: color, text: text)
  }

  public static func == (a: ChatMessage, b: ChatMessage) -> Bool {
    a.id == b.id && a.time == b.time && a.isAction == b.isAction
      && (a.strings === b.strings
        || (a.room == b.room && a.author == b.author && a.color == b.color && a.text == b.text))
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(id)
    hasher.combine(room)
    hasher.combine(time)
    hasher.combine(author)
    hasher.combine(color)
    hasher.combine(text)
    hasher.combine(isAction)
  }

  /// The strings of a message, never changed once made (so shared copies stay equal).
  private final class Strings: Sendable {
    let room: String
    let author: String
    let color: String
    let text: String

    init(room: String, author: String, color: String, text: String) {
      self.room = room
      self.author = author
      self.color = color
      self.text = text
    }
  }
}
