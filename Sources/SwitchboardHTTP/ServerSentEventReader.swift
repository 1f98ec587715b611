/// One event of a `text/event-stream` body: its type (`event:`, else `message`), its data
/// (the `data:` lines joined with LF) and the last event id seen (`id:`), if any.
public struct ServerSentEvent: Sendable, Hashable {
  /// The `event:` field, or `message` when the event named none.
  public var type: String
  /// The event's `data:` lines, joined with LF (no trailing LF).
  public var data: String
  /// The last `id:` the stream gave, up to this event (it carries over, as in a browser).
  public var lastEventID: String?

  /// An event of `type` carrying `data`.
  public init(type: String, data: String, lastEventID: String? = nil) {
    self.type = type
    self.data = data
    self.lastEventID = lastEventID
  }
}

/// Why a `text/event-stream` could not be read.
///
/// Cases are static members over a private code, so new ones can be added without breaking
/// users; two errors are equal when they are the same case.
public struct ServerSentEventError: Error, Sendable, Hashable, CustomStringConvertible {
  private enum Code: Sendable, Hashable {
    case lineTooLong
    case eventTooLarge
  }

  private let code: Code
  /// A short explanation, naming the limit.
  public let description: String

  private init(_ code: Code, _ description: String) {
    self.code = code
    self.description = description
  }

  /// A line (field or comment) longer than ``ServerSentEventReader/Limits/maxLineBytes``.
  public static let lineTooLong = ServerSentEventError(.lineTooLong, "an event-stream line is too long")
  /// An event whose data passed ``ServerSentEventReader/Limits/maxEventBytes``.
  public static let eventTooLarge = ServerSentEventError(.eventTooLarge, "an event-stream event is too large")

  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// Reads the events of a `text/event-stream` body (WHATWG HTML, "Server-sent events":
/// lines end in CRLF, LF or CR; `:` starts a comment; a blank line ends an event; one space
/// after the colon is dropped; a leading byte-order mark is skipped). No I/O: feed it bytes
/// with ``append(_:)``, take events with ``next()`` until it returns `nil` ("need more").
///
/// Limits are on by default: a line over ``Limits/maxLineBytes`` or an event over
/// ``Limits/maxEventBytes`` throws, before the bytes are kept; an error sticks. The result
/// does not depend on how the bytes were split. `retry:` is read and ignored (a reader that
/// reconnects chooses its own pace); an `id:` holding NUL is ignored, as the standard says.
public struct ServerSentEventReader: Sendable {
  /// How much one line and one event may hold.
  public struct Limits: Sendable, Hashable {
    /// The longest line, in bytes, without its line end. Default 4 MiB.
    public var maxLineBytes: Int
    /// The most data one event may gather, in bytes. Default 4 MiB.
    public var maxEventBytes: Int

    /// Limits of `maxLineBytes` per line and `maxEventBytes` per event.
    public init(maxLineBytes: Int = 4 << 20, maxEventBytes: Int = 4 << 20) {
      self.maxLineBytes = maxLineBytes
      self.maxEventBytes = maxEventBytes
    }
  }

  /// Where the reader stands between lines.
  private enum Position: Sendable {
    /// At the very start: a byte-order mark may come.
    case streamStart
    /// At a line's start, after a CR: an LF here belongs to that line end.
    case afterCR
    /// At a line's start (or inside one).
    case lineStart
  }

  /// The limits in force.
  public let limits: Limits
  private var buffer: [UInt8] = []
  /// Where unread bytes begin in ``buffer``.
  private var start = 0
  /// Up to where ``buffer`` is known to hold no line end (so a long line is scanned once).
  private var scanned = 0
  private var position = Position.streamStart
  private var type: [UInt8] = []
  private var data: [UInt8] = []
  private var hasData = false
  private var lastEventID: String?
  private var failure: ServerSentEventError?

  /// A reader with `limits`.
  public init(limits: Limits = Limits()) {
    self.limits = limits
  }

  /// Adds bytes read from the body.
  public mutating func append(_ bytes: some Sequence<UInt8>) {
    buffer.append(contentsOf: bytes)
  }

  /// The next complete event, or `nil` when more bytes are needed.
  /// - Throws: ``ServerSentEventError/lineTooLong`` or ``ServerSentEventError/eventTooLarge``
  ///   (and the same again on every later call).
  public mutating func next() throws(ServerSentEventError) -> ServerSentEvent? {
    if let failure { throw failure }
    do {
      return try read()
    } catch {
      failure = error
      buffer = []
      start = 0
      scanned = 0
      throw error
    }
  }

  private mutating func read() throws(ServerSentEventError) -> ServerSentEvent? {
    while true {
      if position == .streamStart {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let available = buffer.count - start
        let prefix = buffer[start..<(start + min(3, available))]
        if !prefix.elementsEqual(bom.prefix(prefix.count)) {
          position = .lineStart
        } else if available >= 3 {
          start += 3
          position = .lineStart
        } else {
          return nil
        }
      }
      if position == .afterCR, start < buffer.count {
        if buffer[start] == 0x0A { start += 1 }
        position = .lineStart
      }
      guard let end = buffer[max(start, scanned)...].firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) else {
        if buffer.count - start > limits.maxLineBytes { throw .lineTooLong }
        scanned = buffer.count
        compact()
        return nil
      }
      if end - start > limits.maxLineBytes { throw .lineTooLong }
      let lineStart = start
      start = end + 1
      position = buffer[end] == 0x0D ? .afterCR : .lineStart
      if let event = try process(lineStart..<end) {
        compact()
        return event
      }
    }
  }

  /// Takes one line (its bytes in ``buffer``); an event when the line is blank and ends one.
  private mutating func process(_ line: Range<Int>) throws(ServerSentEventError) -> ServerSentEvent? {
    guard !line.isEmpty else { return dispatch() }
    if buffer[line.lowerBound] == UInt8(ascii: ":") { return nil }
    let colon = buffer[line].firstIndex(of: UInt8(ascii: ":"))
    let name = buffer[line.lowerBound..<(colon ?? line.upperBound)]
    var valueStart = colon.map { $0 + 1 } ?? line.upperBound
    if valueStart < line.upperBound, buffer[valueStart] == 0x20 { valueStart += 1 }
    let value = buffer[valueStart..<line.upperBound]
    if name.elementsEqual("data".utf8) {
      let added = value.count + (hasData ? 1 : 0)
      if data.count + added > limits.maxEventBytes { throw .eventTooLarge }
      if hasData { data.append(0x0A) }
      data.append(contentsOf: value)
      hasData = true
    } else if name.elementsEqual("event".utf8) {
      type = Array(value)
    } else if name.elementsEqual("id".utf8) {
      if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
    }
    return nil
  }

  /// Ends the event being gathered: the event if it has data (a blank line after none
  /// dispatches nothing, as in a browser).
  private mutating func dispatch() -> ServerSentEvent? {
    defer {
      type = []
      data = []
      hasData = false
    }
    guard hasData else { return nil }
    let name = type.isEmpty ? "message" : String(decoding: type, as: UTF8.self)
    return ServerSentEvent(type: name, data: String(decoding: data, as: UTF8.self), lastEventID: lastEventID)
  }

  /// Drops the bytes read, once they are at least half the buffer (amortised O(1) a byte).
  private mutating func compact() {
    guard start > 0, start * 2 >= buffer.count else { return }
    buffer.removeFirst(start)
    scanned = max(0, scanned - start)
    start = 0
  }
}
