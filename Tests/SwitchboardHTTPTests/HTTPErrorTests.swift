import SwitchboardHTTP
import SwitchboardTestSupport
import Testing

@Suite(.onTestThreads)
struct HTTPErrorTests {
  @Test(arguments: [
    (HTTPError.malformedRequestLine, 400), (.malformedStatusLine, 400), (.malformedHeader, 400),
    (.invalidContentLength, 400), (.bodyTooLarge, 413), (.startLineTooLong, 414),
    (.headersTooLarge, 431), (.tooManyHeaders, 431), (.unsupportedTransferEncoding, 501),
    (.unsupportedVersion, 505),
  ])
  func everyErrorMapsToItsStatus(error: HTTPError, status: Int) {
    #expect(error.status == status)
    #expect(error.description.hasPrefix("\(status) "))
  }

  @Test func equalityIgnoresTheDetailMessage() {
    var parser = HTTPRequestParser(limits: HTTPLimits(maxHeaderCount: 1))
    parser.append(Array("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\n\r\n".utf8))
    #expect(throws: HTTPError.tooManyHeaders) { try parser.next() }
    do {
      _ = try parser.next()
    } catch {
      #expect(error.message == "more than 1 header fields")
      #expect(error == .tooManyHeaders)
      #expect(error != .headersTooLarge)
    }
  }
}
