/// Reads a response body after ``HTTPResponseParser`` has read its head: by `Content-Length`,
/// `Transfer-Encoding: chunked`, or (neither given) until the peer closes. No I/O: feed it
/// bytes, ask whether the body is complete.
///
/// The body never grows beyond `maxBodySize`: a declared length over it fails at once, a
/// chunked or close-delimited body as soon as its bytes pass it
/// (``HTTPError/bodyTooLarge``). A chunk size line that is not hexadecimal, or a chunk not
/// followed by CRLF, is ``HTTPError/malformedHeader`` with a message saying so. Like the
/// parsers, the result does not depend on how the bytes were split, and an error sticks.
public struct HTTPResponseBodyReader: Sendable {
  /// How the body's end is found.
  public enum Framing: Sendable, Hashable {
    /// Exactly this many bytes.
    case length(Int)
    /// Chunks, ending with a zero-size chunk and trailers.
    case chunked
    /// Everything until the peer closes (an HTTP/1.0-style answer without a length).
    case untilClose
  }

  private enum Chunked: Sendable {
    case sizeLine
    case data(remaining: Int)
    case dataEnd
    case trailers
  }

  /// The framing `head` declares for a response to a request with `method`.
  /// - Throws: ``HTTPError/invalidContentLength``, or ``HTTPError/unsupportedTransferEncoding``
  ///   for a transfer coding other than `chunked`.
  public static func framing(of head: HTTPResponseHead, method: String) throws(HTTPError) -> Framing {
    if method == "HEAD" || (100..<200).contains(head.status) || head.status == 204 || head.status == 304 {
      return .length(0)
    }
    if let coding = head.headers["Transfer-Encoding"] {
      guard coding.trimmingSpacesAndTabs().lowercased() == "chunked" else {
        throw HTTPError.unsupportedTransferEncoding.with(message: "unsupported Transfer-Encoding '\(coding)'")
      }
      return .chunked
    }
    if head.headers["Content-Length"] != nil { return .length(try HTTPRequestParser.contentLength(head.headers)) }
    return .untilClose
  }

  /// The framing being read.
  public let framing: Framing
  /// The largest body accepted, in bytes.
  public let maxBodySize: Int
  private var input: [UInt8] = []
  private var inputIndex = 0
  /// The body decoded so far.
  private var body: [UInt8] = []
  private var chunked = Chunked.sizeLine
  private var complete = false
  private var failure: HTTPError?

  /// Starts reading a body framed as `framing`.
  public init(framing: Framing, maxBodySize: Int) {
    self.framing = framing
    self.maxBodySize = maxBodySize
    if case .length(0) = framing { complete = true }
  }

  /// Buffers bytes received after the head (or after the head's leftover bytes).
  public mutating func append(_ bytes: some Sequence<UInt8>) {
    input.append(contentsOf: bytes)
  }

  /// Buffers bytes received (copied).
  public mutating func append(_ bytes: UnsafeRawBufferPointer) {
    input.append(contentsOf: bytes)
  }

  /// The whole body once it is complete, `nil` while more bytes are needed.
  /// - Throws: ``HTTPError`` as described on the type; the reader then stays failed.
  public mutating func next() throws(HTTPError) -> [UInt8]? {
    if let failure { throw failure }
    do {
      try step()
    } catch {
      failure = error
      throw error
    }
    return complete ? body : nil
  }

  /// The peer closed: completes an ``Framing/untilClose`` body.
  /// - Returns: the body, or `nil` when the close came before the declared end (a truncated
  ///   answer).
  public mutating func finishAtClose() -> [UInt8]? {
    guard failure == nil else { return nil }
    if complete { return body }
    guard case .untilClose = framing else { return nil }
    do {
      _ = try next()
    } catch {
      return nil
    }
    complete = true
    return body
  }

  /// Bytes received after the body's end (a keep-alive peer that sent more than it
  /// declared has broken the framing; a caller should not reuse such a connection).
  public var hasExtraBytes: Bool { complete && inputIndex < input.count }

  private mutating func take(upTo count: Int) {
    let end = min(input.count, inputIndex + count)
    body.append(contentsOf: input[inputIndex..<end])
    inputIndex = end
  }

  private mutating func compact() {
    if inputIndex > 4096, inputIndex * 2 > input.count {
      input.removeSubrange(0..<inputIndex)
      inputIndex = 0
    }
  }

  private mutating func step() throws(HTTPError) {
    defer { compact() }
    guard !complete else { return }
    switch framing {
    case .length(let length):
      guard length <= maxBodySize else {
        throw HTTPError.bodyTooLarge.with(message: "body of \(length) bytes is over the \(maxBodySize) byte limit")
      }
      take(upTo: length - body.count)
      complete = body.count == length
    case .untilClose:
      take(upTo: input.count - inputIndex)
      guard body.count <= maxBodySize else {
        throw HTTPError.bodyTooLarge.with(message: "body over the \(maxBodySize) byte limit")
      }
    case .chunked:
      try stepChunked()
    }
  }

  /// The next CRLF- (or LF-) terminated line, without its terminator.
  private mutating func line(limit: Int) throws(HTTPError) -> ArraySlice<UInt8>? {
    guard let lf = input[inputIndex...].firstIndex(of: UInt8(ascii: "\n")) else {
      guard input.count - inputIndex <= limit else { throw Self.malformed("chunk line too long") }
      return nil
    }
    guard lf - inputIndex <= limit else { throw Self.malformed("chunk line too long") }
    var end = lf
    if end > inputIndex, input[end - 1] == UInt8(ascii: "\r") { end -= 1 }
    let line = input[inputIndex..<end]
    inputIndex = lf + 1
    return line
  }

  private static func malformed(_ why: String) -> HTTPError {
    HTTPError.malformedHeader.with(message: "malformed chunked body: \(why)")
  }

  private mutating func stepChunked() throws(HTTPError) {
    while true {
      switch chunked {
      case .sizeLine:
        guard let line = try line(limit: 1024) else { return }
        let digits = line.prefix { $0 != UInt8(ascii: ";") }.trimmingSpacesAndTabs()
        guard !digits.isEmpty, digits.count <= 15, let size = Int(String(decoding: digits, as: UTF8.self), radix: 16),
          size >= 0
        else { throw Self.malformed("bad chunk size") }
        guard body.count + size <= maxBodySize else {
          throw HTTPError.bodyTooLarge.with(message: "chunked body over the \(maxBodySize) byte limit")
        }
        chunked = size == 0 ? .trailers : .data(remaining: size)
      case .data(let remaining):
        let before = body.count
        take(upTo: remaining)
        let left = remaining - (body.count - before)
        guard left == 0 else {
          chunked = .data(remaining: left)
          return
        }
        chunked = .dataEnd
      case .dataEnd:
        guard let line = try line(limit: 2) else { return }
        guard line.isEmpty else { throw Self.malformed("no CRLF after a chunk") }
        chunked = .sizeLine
      case .trailers:
        guard let line = try line(limit: 8192) else { return }
        if line.isEmpty {
          complete = true
          return
        }
      }
    }
  }
}
