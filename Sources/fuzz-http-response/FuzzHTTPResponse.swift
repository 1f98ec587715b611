import SwitchboardFuzzSupport
import SwitchboardHTTP

// libFuzzer target for HTTPResponseParser (docs/TESTING.md, "Fuzzing"). Properties, for every
// input: no head breaks a limit; pieces parse as the whole does; and every head with a
// status the encoder can write (100–999), encoded by HTTPResponse, parses back to itself —
// with the encoder's own Content-Length and with tabs as spaces.

/// Small limits, so that short inputs reach every one.
let limits = HTTPLimits(maxStartLineLength: 256, maxHeaderCount: 12, maxHeaderBytes: 1024)

/// The heads `chunks` parse to, and the error that stopped the parser (if any).
func parse(_ chunks: [[UInt8]], limits: HTTPLimits) -> (heads: [HTTPResponseHead], error: HTTPError?) {
  let (heads, error) = Fuzz.decodeAll(
    chunks, with: HTTPResponseParser(limits: limits), append: { $0.append($1) },
    next: { (parser: inout HTTPResponseParser) throws(HTTPError) in try parser.next() })
  return (heads, error)
}

/// The body `chunks` read to (by the framing the first byte picks), or the error.
func readBody(_ chunks: [[UInt8]], framing: HTTPResponseBodyReader.Framing) -> Result<[UInt8]?, HTTPError> {
  var reader = HTTPResponseBodyReader(framing: framing, maxBodySize: 512)
  for chunk in chunks {
    reader.append(chunk)
    do {
      if let body = try reader.next() { return .success(body) }
    } catch {
      return .failure(error)
    }
  }
  return .success(reader.finishAtClose())
}

/// The body reader (the outbound HTTP client reads answers with it): pieces read as the
/// whole does, no body passes the limit, and a chunked body of the input's own chunk
/// encoding reads back to the input.
func checkBody(_ bytes: [UInt8]) {
  let framings: [HTTPResponseBodyReader.Framing] = [.chunked, .length(bytes.count / 2), .untilClose]
  let framing = framings[Int(bytes.first ?? 0) % framings.count]
  let whole = readBody([bytes], framing: framing)
  let cut = readBody(Fuzz.pieces(bytes, seed: bytes.last ?? 0), framing: framing)
  Fuzz.require(whole == cut, "body pieces read differently: \(whole) vs \(cut)")
  if case .success(let body?) = whole { Fuzz.require(body.count <= 512, "body over the limit") }
  let payload = Array(bytes.prefix(400))
  var encoded = Array("\(String(payload.count, radix: 16))\r\n".utf8) + payload + Array("\r\n0\r\n\r\n".utf8)
  if payload.isEmpty { encoded = Array("0\r\n\r\n".utf8) }
  Fuzz.require(readBody([encoded], framing: .chunked) == .success(payload), "chunked round trip")
}

func check(_ bytes: [UInt8]) {
  checkBody(bytes)
  let whole = parse([bytes], limits: limits)
  let cut = parse(Fuzz.pieces(bytes, seed: bytes.first ?? 0), limits: limits)
  Fuzz.require(cut.heads == whole.heads && cut.error == whole.error, "pieces parsed differently")
  for head in whole.heads {
    Fuzz.require((0...999).contains(head.status), "status \(head.status)")
    Fuzz.require(head.reason.unicodeScalars.count + 13 <= limits.maxStartLineLength, "status line")
    Fuzz.require(head.headers.count <= limits.maxHeaderCount, "header count")
    Fuzz.require(!head.reason.utf8.contains { $0 < 0x20 && $0 != 0x09 }, "control character in the reason")
    guard head.status >= 100 else { continue }
    let response = HTTPResponse(status: head.status, reason: head.reason, version: head.version, headers: head.headers)
    let roomy = HTTPLimits(maxStartLineLength: 4096, maxHeaderCount: 13, maxHeaderBytes: 16384)
    let again = parse([response.encode()], limits: roomy)
    var fields = head.headers.filter { !$0.name.asciiLowercasedEquals("content-length") }.map {
      ($0.name, spacedTabs($0.value))
    }
    if !response.hasNoBody { fields.append(("Content-Length", "0")) }
    let expected = HTTPResponseHead(
      version: head.version, status: head.status, reason: spacedTabs(head.reason), headers: HTTPHeaders(fields))
    Fuzz.require(again.error == nil && again.heads == [expected], "round trip: \(head) became \(again)")
  }
}

/// `value` with its tabs as spaces, as the encoder writes them.
func spacedTabs(_ value: String) -> String {
  String(decoding: value.utf8.map { $0 == 0x09 ? 0x20 : $0 }, as: UTF8.self)
}

extension String {
  func asciiLowercasedEquals(_ other: String) -> Bool {
    utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }.elementsEqual(other.utf8)
  }
}

#if FUZZ_HTTP_RESPONSE
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { Fuzz.one(data, size, check) }
#else
  @main enum Replay { static func main() { Fuzz.replay(check) } }
#endif
