import SwitchboardFuzzSupport
import SwitchboardHTTP

// libFuzzer target for HTTPRequestParser (docs/TESTING.md, "Fuzzing"). Properties, for every
// input: no request breaks a limit; the input cut into pieces parses to the same requests
// and the same error as the input whole; and every request, re-encoded, parses back to
// itself (header values with a tab come back with a space: the encoder writes no control
// characters).

/// Small limits, so that short inputs reach every one.
let limits = HTTPLimits(maxStartLineLength: 256, maxHeaderCount: 12, maxHeaderBytes: 1024, maxBodySize: 2048)

/// The requests `chunks` parse to, and the error that stopped the parser (if any).
func parse(_ chunks: [[UInt8]], limits: HTTPLimits) -> (requests: [HTTPRequest], error: HTTPError?) {
  let (requests, error) = Fuzz.decodeAll(
    chunks, with: HTTPRequestParser(limits: limits), append: { $0.append($1) },
    next: { (parser: inout HTTPRequestParser) throws(HTTPError) in try parser.next() })
  return (requests, error)
}

func check(_ bytes: [UInt8]) {
  let whole = parse([bytes], limits: limits)
  let cut = parse(Fuzz.pieces(bytes, seed: bytes.first ?? 0), limits: limits)
  Fuzz.require(cut.requests == whole.requests && cut.error == whole.error, "pieces parsed differently")
  for request in whole.requests {
    let head = request.head
    Fuzz.require(head.method.utf8.count + head.target.unicodeScalars.count + 11 <= limits.maxStartLineLength, "request line")
    Fuzz.require(head.headers.count <= limits.maxHeaderCount, "header count")
    Fuzz.require(request.body.count <= limits.maxBodySize, "body size")
    Fuzz.require(!head.path.contains("?") && !head.path.contains("#"), "path with a query: \(head.path)")
    _ = (head.query, head.keepAlive, head.isWebSocketUpgrade)
    // Re-encoding can lengthen lines (CRLF for LF, U+FFFD for invalid UTF-8): roomier limits.
    let roomy = HTTPLimits(maxStartLineLength: 4096, maxHeaderCount: 12, maxHeaderBytes: 16384, maxBodySize: 2048)
    let again = parse([head.encode() + request.body], limits: roomy)
    var expected = request
    expected.head.headers = HTTPHeaders(head.headers.map { ($0.name, spacedTabs($0.value)) })
    Fuzz.require(again.error == nil && again.requests == [expected], "round trip: \(request) became \(again)")
  }
}

/// `value` with its tabs as spaces, as the encoder writes them.
func spacedTabs(_ value: String) -> String {
  String(decoding: value.utf8.map { $0 == 0x09 ? 0x20 : $0 }, as: UTF8.self)
}

#if FUZZ_HTTP_REQUEST
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { Fuzz.one(data, size, check) }
#else
  @main enum Replay { static func main() { Fuzz.replay(check) } }
#endif
