/// The buffered bytes of a connection and the line-by-line reading of a message head,
/// shared by ``HTTPRequestParser`` and ``HTTPResponseParser``.
///
/// Indices are absolute positions in `bytes`; the buffer is only compacted between
/// messages (``beginMessage()``), so positions saved within a message stay valid.
/// Every search resumes where the previous one stopped, so feeding a message one byte at
/// a time costs linear, not quadratic, time.
struct HTTPHeadReader: Sendable {
  private var bytes: [UInt8] = []
  /// Where the message being parsed starts (what ``takeRemaining()`` returns from).
  private var messageStart = 0
  /// The first byte not yet consumed.
  private var readIndex = 0
  /// Where the search for the next LF resumes.
  private var scanIndex = 0
  /// Header fields read so far for the current message.
  private var headers = HTTPHeaders()
  /// Header section bytes consumed so far for the current message, terminators included.
  private var headerBytes = 0

  mutating func append(_ newBytes: some Sequence<UInt8>) {
    bytes.append(contentsOf: newBytes)
  }

  /// Consumes and returns the next line without its terminator (LF, or CRLF), or `nil` when
  /// no complete line is buffered yet.
  /// - Throws: `tooLong` as soon as it is certain the line, terminator included, exceeds
  ///   `maxLength` bytes — the same answer whether the bytes came at once or in pieces.
  mutating func nextLine(maxLength: Int, tooLong: HTTPError) throws(HTTPError) -> ArraySlice<UInt8>? {
    let limit = min(bytes.count, readIndex + max(maxLength, 0))
    let from = max(scanIndex, readIndex)
    if from < limit, let lf = bytes[from..<limit].firstIndex(of: .lf) {
      var end = lf
      if end > readIndex, bytes[end - 1] == .cr { end -= 1 }
      let line = bytes[readIndex..<end]
      readIndex = lf + 1
      scanIndex = readIndex
      return line
    }
    scanIndex = max(limit, from)
    if bytes.count - readIndex >= maxLength { throw tooLong }
    return nil
  }

  /// Consumes and returns the next start line (request line or status line), skipping the
  /// empty lines a peer may send before it (RFC 9112 §2.2), or `nil` while none is complete.
  /// - Throws: `tooLong` as for ``nextLine(maxLength:tooLong:)``.
  mutating func nextStartLine(maxLength: Int, tooLong: HTTPError) throws(HTTPError) -> ArraySlice<UInt8>? {
    while let line = try nextLine(maxLength: maxLength, tooLong: tooLong) {
      if !line.isEmpty { return line }
      beginMessage()
    }
    return nil
  }

  /// ``nextStartLine(maxLength:tooLong:)`` within `limits`, its error naming the line
  /// (`request line`, `status line`).
  mutating func nextStartLine(_ name: String, limits: HTTPLimits) throws(HTTPError) -> ArraySlice<UInt8>? {
    try nextStartLine(
      maxLength: limits.maxStartLineLength,
      tooLong: HTTPError.startLineTooLong.with(
        message: "\(name) longer than \(limits.maxStartLineLength) bytes"))
  }

  /// Reads header lines up to the empty line that ends the head.
  /// - Returns: the headers once the empty line has arrived, `nil` while more bytes are needed.
  /// - Throws: ``HTTPError/headersTooLarge``, ``HTTPError/tooManyHeaders`` or
  ///   ``HTTPError/malformedHeader``, checked line by line in arrival order.
  mutating func readHeaders(limits: HTTPLimits) throws(HTTPError) -> HTTPHeaders? {
    while true {
      let before = readIndex
      guard
        let line = try nextLine(
          maxLength: limits.maxHeaderBytes - headerBytes,
          tooLong: HTTPError.headersTooLarge.with(
            message: "header section larger than \(limits.maxHeaderBytes) bytes"))
      else { return nil }
      headerBytes += readIndex - before
      if line.isEmpty {
        defer { headers = HTTPHeaders() }
        return headers
      }
      guard headers.count < limits.maxHeaderCount else {
        throw HTTPError.tooManyHeaders.with(message: "more than \(limits.maxHeaderCount) header fields")
      }
      let (name, value) = try Self.parseHeaderLine(line)
      headers.add(name: name, value: value)
    }
  }

  /// Consumes exactly `count` bytes, or returns `nil` while fewer are buffered.
  mutating func take(_ count: Int) -> [UInt8]? {
    guard bytes.count - readIndex >= count else { return nil }
    defer { readIndex += count }
    return Array(bytes[readIndex..<readIndex + count])
  }

  /// Marks everything consumed so far as done: the next message starts here.
  mutating func beginMessage() {
    headers = HTTPHeaders()
    headerBytes = 0
    if readIndex == bytes.count {
      bytes.removeAll(keepingCapacity: bytes.capacity <= 64 * 1024)
      readIndex = 0
    } else if readIndex >= 4096, readIndex * 2 >= bytes.count {
      bytes.removeFirst(readIndex)
      readIndex = 0
    }
    messageStart = readIndex
    scanIndex = readIndex
  }

  /// Returns every byte from the start of the current (unfinished) message on and empties
  /// the buffer.
  mutating func takeRemaining() -> [UInt8] {
    let rest = Array(bytes[messageStart...])
    bytes = []
    readIndex = 0
    beginMessage()
    return rest
  }

  /// `field-name ":" OWS field-value OWS` (RFC 9110 §5). Obsolete line folding, whitespace
  /// before the colon, an empty or non-token name and control characters in the value are
  /// all rejected.
  static func parseHeaderLine(_ line: ArraySlice<UInt8>) throws(HTTPError) -> (String, String) {
    guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
      throw HTTPError.malformedHeader.with(message: "header line without a colon")
    }
    let name = line[line.startIndex..<colon]
    guard !name.isEmpty, name.allSatisfy(\.isTokenByte) else {
      throw HTTPError.malformedHeader.with(message: "invalid header name")
    }
    let value = line[(colon + 1)...].trimmingSpacesAndTabs()
    guard value.allSatisfy(\.isFieldValueByte) else {
      throw HTTPError.malformedHeader.with(message: "control character in header value")
    }
    return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
  }

  /// `HTTP/DIGIT.DIGIT`; well-formed versions other than 1.0 and 1.1 throw
  /// ``HTTPError/unsupportedVersion``, anything else `malformed`.
  static func parseVersion(_ text: ArraySlice<UInt8>, malformed: HTTPError) throws(HTTPError) -> HTTPVersion {
    let prefix = "HTTP/".utf8
    guard text.count == prefix.count + 3, text.starts(with: prefix) else { throw malformed }
    let major = text[text.startIndex + 5], dot = text[text.startIndex + 6], minor = text[text.startIndex + 7]
    guard major.isDigit, dot == UInt8(ascii: "."), minor.isDigit else { throw malformed }
    let version = HTTPVersion(major: Int(major - UInt8(ascii: "0")), minor: Int(minor - UInt8(ascii: "0")))
    guard version == .http1_0 || version == .http1_1 else {
      throw HTTPError.unsupportedVersion.with(message: "\(version) is not supported")
    }
    return version
  }
}

extension UInt8 {
  static let cr = UInt8(ascii: "\r")
  static let lf = UInt8(ascii: "\n")
  static let space = UInt8(ascii: " ")

  var isDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }

  /// `tchar` of RFC 9110 §5.6.2.
  var isTokenByte: Bool {
    switch self {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      true
    default:
      "!#$%&'*+-.^_`|~".utf8.contains(self)
    }
  }

  /// Visible characters, space, tab and obs-text (bytes ≥ 0x80); no other control characters.
  var isFieldValueByte: Bool { self == UInt8(ascii: "\t") || (self >= 0x20 && self != 0x7F) }
}
