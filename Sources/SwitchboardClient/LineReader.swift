import SwitchboardWire

/// The line dialect's receive side, for every transport that carries it: bytes in, text
/// units out. LF or CR LF ends a line (``LineFramer``); a line longer than
/// ``maxLineLength`` is dropped whole; text is decoded as UTF-8 with invalid bytes
/// replaced (U+FFFD), as the server reads lines.
struct LineReader {
  /// The longest line taken from the server, as for a WebSocket message
  /// (``WebSocketClient/Configuration/maxMessageSize``); a longer one is dropped whole.
  static let maxLineLength = 16 << 20
  /// More than a datagram can hold: no line in one is too long.
  static let maxDatagramLength = 1 << 16

  private var framer: LineFramer

  /// A reader of one stream (a TCP or TLS connection).
  init(maxLineLength: Int = LineReader.maxLineLength) {
    framer = LineFramer(maxLineLength: maxLineLength)
  }

  /// Takes `bytes` from the stream and hands each line completed by them to `line`.
  mutating func read(_ bytes: UnsafeRawBufferPointer, _ line: (String) -> Void) {
    framer.append(bytes)
    drain(line)
  }

  /// Takes `bytes` from the stream and hands each line completed by them to `line`.
  mutating func read(contentsOf bytes: some Sequence<UInt8>, _ line: (String) -> Void) {
    framer.append(contentsOf: bytes)
    drain(line)
  }

  /// The stream ended: the unterminated rest, if any, is a last line.
  mutating func finish() -> String? {
    framer.takePartial().map { String(decoding: $0, as: UTF8.self) }
  }

  private mutating func drain(_ line: (String) -> Void) {
    while let output = framer.next() {
      switch output {
      case .line(let bytes): line(String(decoding: bytes, as: UTF8.self))
      case .tooLong: continue
      }
    }
  }

  /// The lines of one datagram: a datagram may hold several (replies to `/help`), each one
  /// unit, split as a stream is; the last needs no terminator.
  static func lines(ofDatagram bytes: UnsafeRawBufferPointer, _ line: (String) -> Void) {
    var reader = LineReader(maxLineLength: maxDatagramLength)
    reader.read(bytes, line)
    if let last = reader.finish() { line(last) }
  }
}
