/// Splits a TCP byte stream into lines: LF or CRLF ends a line, a pause ends an
/// unterminated one (the caller decides when: ``takePartial()``), and a line over the
/// limit is discarded up to its newline and reported once.
///
/// A pure value type: bytes in, lines out; no clock inside.
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
  private var buffer: [UInt8] = []
  private var scanned = 0
  private var discarding = false

  /// Makes a framer; the default limit is 64 KiB.
  public init(maxLineLength: Int = 64 * 1024) {
    self.maxLineLength = maxLineLength
  }

  /// Bytes buffered without a newline yet.
  public var pendingCount: Int { buffer.count }

  /// Adds received bytes.
  public mutating func append(_ bytes: UnsafeRawBufferPointer) {
    buffer.append(contentsOf: bytes)
  }

  /// Adds received bytes.
  public mutating func append(contentsOf bytes: some Sequence<UInt8>) {
    buffer.append(contentsOf: bytes)
  }

  /// The next complete line or error, or `nil` when more bytes are needed.
  public mutating func next() -> Output? {
    while true {
      guard let newline = buffer[scanned...].firstIndex(of: 0x0A) else {
        scanned = buffer.count
        // +1: the line may still end in CR LF, and the CR does not count.
        if !discarding && buffer.count > maxLineLength + 1 {
          // Over the limit with no end in sight: drop what we have, keep dropping.
          buffer.removeAll(keepingCapacity: false)
          scanned = 0
          discarding = true
          return .tooLong(limit: maxLineLength)
        }
        if discarding {
          buffer.removeAll(keepingCapacity: false)
          scanned = 0
        }
        return nil
      }
      var end = newline
      if end > 0 && buffer[end - 1] == 0x0D { end -= 1 }
      let line = Array(buffer[0..<end])
      buffer.removeSubrange(0...newline)
      scanned = 0
      if discarding {
        discarding = false
        continue
      }
      if line.count > maxLineLength { return .tooLong(limit: maxLineLength) }
      return .line(line)
    }
  }

  /// Takes buffered bytes that have no newline yet (the sender paused), or `nil`.
  public mutating func takePartial() -> [UInt8]? {
    if discarding {
      buffer.removeAll()
      scanned = 0
      discarding = false
      return nil
    }
    guard !buffer.isEmpty else { return nil }
    var line = buffer
    if line.last == 0x0D { line.removeLast() }
    buffer.removeAll(keepingCapacity: true)
    scanned = 0
    return line.isEmpty ? nil : line
  }
}
