import SwitchboardHTTP
import SwitchboardTestSupport
import Testing

/// Everything a parser produced from some input: the requests, then the error (if any) and
/// the bytes left over.
struct RequestOutcome: Equatable, CustomStringConvertible {
  var requests: [HTTPRequest] = []
  var error: HTTPError?
  var remaining: [UInt8] = []

  /// Feeds `chunks` one at a time, draining `next()` after each, as an event loop would.
  init(chunks: [[UInt8]], limits: HTTPLimits = .default) {
    var parser = HTTPRequestParser(limits: limits)
    feeding: for chunk in chunks {
      parser.append(chunk)
      do {
        while let request = try parser.next() { requests.append(request) }
      } catch {
        self.error = error
        break feeding
      }
    }
    if error == nil { remaining = parser.takeRemainingBytes() }
  }

  init(_ text: String, limits: HTTPLimits = .default) {
    self.init(chunks: [Array(text.utf8)], limits: limits)
  }

  var description: String {
    "\(requests.count) requests, error: \(error.map(String.init(describing:)) ?? "none"), \(remaining.count) bytes left"
  }
}

@Suite(.onTestThreads)
struct HTTPRequestParserTests {
  @Test func simpleGetIsParsed() throws {
    var parser = HTTPRequestParser()
    parser.append(Array("GET /rooms/lobby?x=1 HTTP/1.1\r\nHost: example\r\nUser-Agent: t\r\n\r\n".utf8))
    let request = try #require(try parser.next())
    #expect(request.head.method == "GET")
    #expect(request.head.target == "/rooms/lobby?x=1")
    #expect(request.head.path == "/rooms/lobby")
    #expect(request.head.version == .http1_1)
    #expect(request.head.headers["host"] == "example")
    #expect(request.head.headers.count == 2)
    #expect(request.body.isEmpty)
    #expect(try parser.next() == nil)
  }

  @Test func incompleteHeadReturnsNil() throws {
    var parser = HTTPRequestParser()
    parser.append(Array("GET / HTTP/1.1\r\nHost: a\r\n".utf8))
    #expect(try parser.next() == nil)
    parser.append(Array("\r\n".utf8))
    #expect(try parser.next() != nil)
  }

  @Test func bareLineFeedsAreAccepted() throws {
    let outcome = RequestOutcome("GET /a HTTP/1.0\nHost: x\nContent-Length: 2\n\nhi")
    #expect(outcome.error == nil)
    #expect(outcome.requests.count == 1)
    #expect(outcome.requests.first?.head.headers["Host"] == "x")
    #expect(outcome.requests.first?.body == Array("hi".utf8))
  }

  @Test func leadingEmptyLinesAreSkipped() {
    let outcome = RequestOutcome("\r\n\nGET / HTTP/1.1\r\n\r\n")
    #expect(outcome.error == nil)
    #expect(outcome.requests.map(\.head.target) == ["/"])
  }

  @Test func headerValuesAreTrimmedAndOrderKept() throws {
    let outcome = RequestOutcome("GET / HTTP/1.1\r\nA:  1 \t\r\nB:2\r\na: 3\r\nEmpty:\r\n\r\n")
    let headers = try #require(outcome.requests.first?.head.headers)
    #expect(headers.map(\.name) == ["A", "B", "a", "Empty"])
    #expect(headers.values("A") == ["1", "3"])
    #expect(headers["empty"] == "")
  }

  @Test func contentLengthBodyIsRead() throws {
    var parser = HTTPRequestParser()
    parser.append(Array("POST /send HTTP/1.1\r\nContent-Length: 11\r\n\r\nhello".utf8))
    #expect(try parser.next() == nil)
    parser.append(Array(" world".utf8))
    let request = try #require(try parser.next())
    #expect(request.head.method == "POST")
    #expect(String(decoding: request.body, as: UTF8.self) == "hello world")
  }

  @Test func pipelinedRequestsAreParsedInOrder() {
    let text =
      "GET /1 HTTP/1.1\r\n\r\n"
      + "POST /2 HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"
      + "GET /3 HTTP/1.1\r\nConnection: close\r\n\r\n"
      + "GET /4 HT"
    let outcome = RequestOutcome(text)
    #expect(outcome.error == nil)
    #expect(outcome.requests.map(\.head.target) == ["/1", "/2", "/3"])
    #expect(outcome.requests[1].body == Array("abc".utf8))
    #expect(outcome.requests.map(\.head.keepAlive) == [true, true, false])
    #expect(outcome.remaining == Array("GET /4 HT".utf8))
  }

  @Test func bytesAfterUpgradeAreReturned() throws {
    var parser = HTTPRequestParser()
    let head = "GET /rooms/a HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
    parser.append(Array(head.utf8) + [0x81, 0x85, 1, 2, 3])
    let request = try #require(try parser.next())
    #expect(request.head.isWebSocketUpgrade)
    #expect(parser.takeRemainingBytes() == [0x81, 0x85, 1, 2, 3])
    #expect(parser.takeRemainingBytes() == [])
  }

  @Test func unsafeRawBufferOverloadAppends() throws {
    var parser = HTTPRequestParser()
    let bytes = Array("GET / HTTP/1.1\r\n\r\n".utf8)
    bytes.withUnsafeBytes { parser.append($0) }
    #expect(try parser.next()?.head.path == "/")
  }

  @Test func longBufferedStreamsStayCorrectAcrossCompaction() {
    // Enough pipelined requests that the buffer is compacted between messages.
    let one = "POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"
    let outcome = RequestOutcome(String(repeating: one, count: 2_000))
    #expect(outcome.error == nil)
    #expect(outcome.requests.count == 2_000)
    #expect(outcome.requests.allSatisfy { $0.body == Array("hello".utf8) })
  }

  @Test func parserStaysFailedAfterAnError() {
    var parser = HTTPRequestParser()
    parser.append(Array("BAD LINE\r\n".utf8))
    #expect(throws: HTTPError.malformedRequestLine) { try parser.next() }
    parser.append(Array("GET / HTTP/1.1\r\n\r\n".utf8))
    #expect(throws: HTTPError.malformedRequestLine) { try parser.next() }
  }

  /// A named bad input, shown by its name in test output instead of its raw bytes.
  struct Malformed: CustomTestStringConvertible, Sendable {
    var name: String
    var text: String
    var expected: HTTPError
    var testDescription: String { name }
  }

  static let malformed: [Malformed] = [(String, String, HTTPError)]([
    ("bad method token", "GE(T / HTTP/1.1\r\n\r\n", .malformedRequestLine),
    ("empty method", " / HTTP/1.1\r\n\r\n", .malformedRequestLine),
    ("missing version", "GET /\r\n\r\n", .malformedRequestLine),
    ("missing target", "GET\r\n\r\n", .malformedRequestLine),
    ("double space", "GET  / HTTP/1.1\r\n\r\n", .malformedRequestLine),
    ("trailing garbage", "GET / HTTP/1.1 x\r\n\r\n", .malformedRequestLine),
    ("lowercase version", "GET / http/1.1\r\n\r\n", .malformedRequestLine),
    ("version without minor", "GET / HTTP/1\r\n\r\n", .malformedRequestLine),
    ("control in target", "GET /a\u{1}b HTTP/1.1\r\n\r\n", .malformedRequestLine),
    ("bare CR in request line", "GET /\r HTTP/1.1\r\n\r\n", .malformedRequestLine),
    ("HTTP/2.0", "GET / HTTP/2.0\r\n\r\n", .unsupportedVersion),
    ("HTTP/0.9", "GET / HTTP/0.9\r\n\r\n", .unsupportedVersion),
    ("HTTP/1.2", "GET / HTTP/1.2\r\n\r\n", .unsupportedVersion),
    ("header without colon", "GET / HTTP/1.1\r\nHost example\r\n\r\n", .malformedHeader),
    ("whitespace before colon", "GET / HTTP/1.1\r\nHost : example\r\n\r\n", .malformedHeader),
    ("empty header name", "GET / HTTP/1.1\r\n: x\r\n\r\n", .malformedHeader),
    ("obsolete line folding", "GET / HTTP/1.1\r\nA: 1\r\n  2\r\n\r\n", .malformedHeader),
    ("control in header value", "GET / HTTP/1.1\r\nA: 1\u{0}2\r\n\r\n", .malformedHeader),
    ("non-numeric Content-Length", "POST / HTTP/1.1\r\nContent-Length: ten\r\n\r\n", .invalidContentLength),
    ("negative Content-Length", "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", .invalidContentLength),
    ("empty Content-Length", "POST / HTTP/1.1\r\nContent-Length:\r\n\r\n", .invalidContentLength),
    ("conflicting Content-Length", "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", .invalidContentLength),
    ("huge Content-Length", "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", .invalidContentLength),
    ("body over limit", "POST / HTTP/1.1\r\nContent-Length: 1048577\r\n\r\n", .bodyTooLarge),
    ("chunked body", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", .unsupportedTransferEncoding),
  ]).map { Malformed(name: $0.0, text: $0.1, expected: $0.2) }

  @Test(arguments: malformed)
  func malformedRequestIsRejected(input: Malformed) {
    let outcome = RequestOutcome(input.text)
    #expect(outcome.error == input.expected, "\(input.name)")
    #expect(outcome.requests.isEmpty, "\(input.name)")
  }

  @Test func errorsCarryTheirStatusCodes() {
    #expect(RequestOutcome("GET /\r\n\r\n").error?.status == 400)
    #expect(RequestOutcome("GET / HTTP/2.0\r\n\r\n").error?.status == 505)
    #expect(RequestOutcome("POST / HTTP/1.1\r\nContent-Length: 2000000\r\n\r\n").error?.status == 413)
    #expect(RequestOutcome("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").error?.status == 501)
  }

  @Test func repeatedEqualContentLengthsAreAccepted() {
    let outcome = RequestOutcome("POST / HTTP/1.1\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nok")
    #expect(outcome.error == nil)
    #expect(outcome.requests.first?.body == Array("ok".utf8))
  }

  @Test func bodyExactlyAtLimitIsAccepted() {
    let limits = HTTPLimits(maxBodySize: 4)
    #expect(RequestOutcome("POST / HTTP/1.1\r\nContent-Length: 4\r\n\r\nabcd", limits: limits).requests.count == 1)
    #expect(RequestOutcome("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n", limits: limits).error == .bodyTooLarge)
  }

  @Test func oversizeRequestLineIsRejectedBeforeItEnds() {
    let line = "GET /" + String(repeating: "a", count: HTTPLimits.defaultMaxStartLineLength)
    let outcome = RequestOutcome(line)  // no line terminator yet
    #expect(outcome.error == .startLineTooLong)
    #expect(outcome.error?.status == 414)
  }

  @Test func requestLineLimitCountsTheTerminator() {
    let limits = HTTPLimits(maxStartLineLength: 16)
    // "GET / HTTP/1.1\r\n" is exactly 16 bytes.
    #expect(RequestOutcome("GET / HTTP/1.1\r\n\r\n", limits: limits).requests.count == 1)
    #expect(RequestOutcome("GET /a HTTP/1.1\r\n\r\n", limits: limits).error == .startLineTooLong)
    #expect(RequestOutcome("GET /a HTTP/1.1\n\n", limits: limits).requests.count == 1)
  }

  @Test func oversizeHeaderSectionIsRejected() {
    let big = "X-Big: " + String(repeating: "b", count: HTTPLimits.defaultMaxHeaderBytes) + "\r\n"
    let outcome = RequestOutcome("GET / HTTP/1.1\r\n" + big + "\r\n")
    #expect(outcome.error == .headersTooLarge)
    #expect(outcome.error?.status == 431)
    // Also while the headers are still arriving.
    let partial = RequestOutcome("GET / HTTP/1.1\r\nX: " + String(repeating: "b", count: 20_000))
    #expect(partial.error == .headersTooLarge)
  }

  @Test func headerSectionAtLimitIsAccepted() {
    let limits = HTTPLimits(maxHeaderBytes: 10)
    // "A: 12345\r\n" is 10 bytes, the final "\r\n" makes 12.
    #expect(RequestOutcome("GET / HTTP/1.1\r\nA: 123\r\n\r\n", limits: limits).requests.count == 1)
    #expect(RequestOutcome("GET / HTTP/1.1\r\nA: 1234\r\n\r\n", limits: limits).error == .headersTooLarge)
  }

  @Test func tooManyHeadersAreRejected() {
    let lines = (0..<101).map { "H\($0): v\r\n" }.joined()
    let outcome = RequestOutcome("GET / HTTP/1.1\r\n" + lines + "\r\n")
    #expect(outcome.error == .tooManyHeaders)
    #expect(outcome.error?.status == 431)
    let hundred = (0..<100).map { "H\($0): v\r\n" }.joined()
    #expect(RequestOutcome("GET / HTTP/1.1\r\n" + hundred + "\r\n").requests.first?.head.headers.count == 100)
  }

  // MARK: - The same result however the bytes are split

  static let splitCorpus: [String] = [
    "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
    "\r\nGET /q?a=1&b=two+words HTTP/1.0\nConnection: keep-alive\n\n",
    "POST /p HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloGET /next HTTP/1.1\r\n\r\nGET /part",
    "GET /rooms/x HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\u{81}\u{0}",
    "GET / HTTP/1.1\r\nHost a\r\n\r\n",
    "GET / HTTP/2.0\r\n\r\n",
    "GET / HTTP/1.1\r\n" + String(repeating: "X: y\r\n", count: 120) + "\r\n",
    "GET /" + String(repeating: "z", count: 9_000) + " HTTP/1.1\r\n\r\n",
    "GET / HTTP/1.1\r\nA: " + String(repeating: "v", count: 17_000) + "\r\n\r\n",
    "POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcPOST / HTTP/1.1\r\nContent-Length: x\r\n\r\n",
    "GET / HTTP/1.1\r\n\r\nGE(T / HTTP/1.1\r\n\r\n",
  ]

  @Test(arguments: splitCorpus)
  func resultDoesNotDependOnSplits(text: String) {
    let bytes = Array(text.utf8)
    let whole = RequestOutcome(chunks: [bytes])
    let byteByByte = RequestOutcome(chunks: bytes.map { [$0] })
    #expect(byteByByte == whole)
    var generator = SeededGenerator(seed: UInt64(bytes.count))
    for _ in 0..<60 {
      let maxChunk = Int.random(in: 1...64, using: &generator)
      let split = RequestOutcome(chunks: bytes.randomSplits(maxChunk: maxChunk, using: &generator))
      #expect(split == whole)
      if split != whole { break }
    }
  }

  @Test func smallLimitsGiveTheSameResultForEverySplit() {
    // Tight limits put every boundary (exactly at, one over) within reach of random cuts.
    let limits = HTTPLimits(maxStartLineLength: 20, maxHeaderCount: 3, maxHeaderBytes: 24, maxBodySize: 8)
    var generator = SeededGenerator(seed: 42)
    let pieces = [
      "GET / HTTP/1.1\r\n", "GET /abcdef HTTP/1.1\n", "A: 1\r\n", "Bb: 22\n", "Content-Length: 3\r\n",
      "\r\n", "\n", "xyz", "GET /x HTTP/1.0\r\n", "Connection: close\r\n", "Host:h\r\n",
    ]
    for _ in 0..<500 {
      let text = (0..<Int.random(in: 1...12, using: &generator)).map { _ in
        pieces.randomElement(using: &generator)!
      }.joined()
      let bytes = Array(text.utf8)
      let whole = RequestOutcome(chunks: [bytes], limits: limits)
      #expect(RequestOutcome(chunks: bytes.map { [$0] }, limits: limits) == whole, "\(text.debugDescription)")
      let split = RequestOutcome(chunks: bytes.randomSplits(maxChunk: 7, using: &generator), limits: limits)
      #expect(split == whole, "\(text.debugDescription)")
    }
  }

  // MARK: - Fuzz

  @Test func randomAndMutatedInputsNeverCrash() {
    var generator = SeededGenerator(seed: 0x5EED)
    let alphabet = Array("GETPOST /?=&%+:HTTP/1.0\r\n\t ab\u{0}\u{7F}".utf8) + [0x80, 0xFF]
    let limits = HTTPLimits(maxStartLineLength: 64, maxHeaderCount: 8, maxHeaderBytes: 128, maxBodySize: 32)
    for iteration in 0..<2_000 {
      var bytes: [UInt8]
      if iteration.isMultiple(of: 2) {
        bytes = (0..<Int.random(in: 0...200, using: &generator)).map { _ in
          alphabet.randomElement(using: &generator)!
        }
      } else {
        bytes = Array(Self.splitCorpus.randomElement(using: &generator)!.utf8.prefix(400))
        for _ in 0..<Int.random(in: 1...8, using: &generator) where !bytes.isEmpty {
          let index = Int.random(in: 0..<bytes.count, using: &generator)
          switch Int.random(in: 0..<3, using: &generator) {
          case 0: bytes[index] = UInt8.random(in: 0...255, using: &generator)
          case 1: bytes.remove(at: index)
          default: bytes.insert(alphabet.randomElement(using: &generator)!, at: index)
          }
        }
      }
      for parserLimits in [limits, .default] {
        let whole = RequestOutcome(chunks: [bytes], limits: parserLimits)
        let split = RequestOutcome(
          chunks: bytes.randomSplits(maxChunk: 9, using: &generator), limits: parserLimits)
        #expect(split == whole)
        for request in whole.requests {
          _ = request.head.query
          _ = request.head.path
          _ = request.head.keepAlive
        }
      }
    }
  }
}
