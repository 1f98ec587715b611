/// Splits a TCP byte stream into lines: LF or CRLF ends a line, a pause ends an
/// unterminated one (the caller decides when: ``takePartial()``), and a line over the
/// limit is discarded up to its newline and reported once.
///
/// A pure value type: bytes in, lines out; no clock inside. Taking a line only moves a
/// read index; consumed bytes are dropped once per ``append(_:)``, so one read holding
/// many lines costs time linear in its size (removing each line from the front of the
/// buffer would move the rest once per line).
public struct LineFramer: Sendable {
  /// What the framer produced.
  public enum Output: Equatable, Sendable {
    /// A complete line without its terminator.
    case line([UInt8])
    /// A line exceeded the limit and was discarded.
    case tooLong(limit: Int)
  }

  /// The longest line kept, in bytes (without the terminator).
  public let maxLineLength: Int
  /// Received bytes; those before `head` are already taken.
  private var buffer: [UInt8] = []
  /// Where the bytes not yet taken start.
  private var head = 0
  /// Where the search for the next newline resumes (`head...scanned` has none).
  private var scanned = 0
  private var discarding = false

  /// Makes a framer; the default limit is 64 KiB.
  public init(maxLineLength: Int = 64 * 1024) {
    self.maxLineLength = maxLineLength
  }

  /// Bytes buffered without a newline yet.
  public var pendingCount: Int { buffer.count - head }

  /// Adds received bytes.
  public mutating func append(_ bytes: UnsafeRawBufferPointer) {
    compact()
    buffer.append(contentsOf: bytes)
  }

  /// Adds received bytes.
  public mutating func append(contentsOf bytes: some Sequence<UInt8>) {
    compact()
    buffer.append(contentsOf: bytes)
  }

  /// The next complete line or error, or `nil` when more bytes are needed.
  public mutating func next() -> Output? {
    while true {
      guard let newline = buffer[scanned...].firstIndex(of: 0x0A) else {
        scanned = buffer.count
        // +1: the line may still end in CR LF, and the CR does not count.
        if !discarding && pendingCount > maxLineLength + 1 {
          // Over the limit with no end in sight: drop what we have, keep dropping.
          clear()
          discarding = true
          return .tooLong(limit: maxLineLength)
        }
        if discarding { clear() }
        return nil
      }
      let start = head
      head = newline + 1
      scanned = head
      if discarding {
        discarding = false
        continue
      }
      var end = newline
      if end > start && buffer[end - 1] == 0x0D { end -= 1 }
      if end - start > maxLineLength { return .tooLong(limit: maxLineLength) }
      return .line(Array(buffer[start..<end]))
    }
  }

  /// Takes buffered bytes that have no newline yet (the sender paused), or `nil` (also when
  /// they are over the limit: they are dropped).
  public mutating func takePartial() -> [UInt8]? {
    if discarding {
      buffer.removeAll()
      head = 0
      scanned = 0
      discarding = false
      return nil
    }
    guard pendingCount > 0 else { return nil }
    var end = buffer.count
    if buffer[end - 1] == 0x0D { end -= 1 }
    // `next()` keeps up to maxLineLength + 1 bytes waiting for a CR LF; without the CR that
    // is one byte over the limit, dropped like the rest of any line over it (found by fuzz-line).
    let line = end - head <= maxLineLength ? Array(buffer[head..<end]) : []
    buffer.removeAll(keepingCapacity: true)
    head = 0
    scanned = 0
    return line.isEmpty ? nil : line
  }

  /// Drops the bytes already taken: at most once per read, and moving only the bytes
  /// after the last line taken.
  private mutating func compact() {
    guard head > 0 else { return }
    if head == buffer.count {
      buffer.removeAll(keepingCapacity: true)
    } else {
      buffer.removeSubrange(0..<head)
    }
    scanned -= head
    head = 0
  }

  /// Forgets everything buffered, giving back its memory (a line over the limit may
  /// have made the buffer large).
  private mutating func clear() {
    buffer.removeAll(keepingCapacity: false)
    head = 0
    scanned = 0
  }
}
