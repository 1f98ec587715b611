import SwitchboardHTTP
import SwitchboardTestSupport
import Testing

@Suite(.onTestThreads)
struct HTTPResponseTests {
  private func text(_ response: HTTPResponse) -> String {
    String(decoding: response.encode(), as: UTF8.self)
  }

  @Test func textResponseIsEncodedDeterministically() {
    let response = HTTPResponse.text(200, "ok\n")
    #expect(text(response) == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 3\r\n\r\nok\n")
    #expect(response.encode() == response.encode())
  }

  @Test func htmlResponseCountsUTF8Bytes() {
    let response = HTTPResponse.html(200, "<p>é</p>")
    #expect(response.headers["content-type"] == "text/html; charset=utf-8")
    #expect(text(response).contains("Content-Length: 9\r\n\r\n<p>é</p>"))
  }

  @Test func emptyBodyStillStatesItsLength() {
    #expect(text(HTTPResponse(status: 404)) == "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
  }

  @Test(arguments: [101, 204, 304])
  func bodilessStatusesHaveNoContentLength(status: Int) {
    let encoded = text(HTTPResponse(status: status, headers: ["Content-Length": "5"], body: Array("ignored".utf8)))
    #expect(!encoded.contains("Content-Length"))
    #expect(encoded.hasSuffix("\r\n\r\n"))
  }

  @Test func callerContentLengthIsReplaced() {
    let encoded = text(HTTPResponse(status: 200, headers: ["content-length": "99"], body: [1, 2]))
    #expect(encoded == "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n\u{1}\u{2}")
  }

  @Test func switchingProtocolsResponse() {
    let response = HTTPResponse(
      status: 101, headers: ["Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": "abc="])
    #expect(
      text(response)
        == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: abc=\r\n\r\n")
  }

  @Test func headerValuesCannotSplitTheResponse() {
    let encoded = text(HTTPResponse(status: 302, headers: ["Location": "/x\r\nSet-Cookie: evil"]))
    #expect(encoded.contains("Location: /x  Set-Cookie: evil\r\n"))
    #expect(!encoded.contains("\r\nSet-Cookie"))
  }

  @Test func errorResponseClosesTheConnection() {
    let response = HTTPResponse.error(.tooManyHeaders)
    #expect(response.status == 431)
    #expect(response.reason == "Request Header Fields Too Large")
    #expect(response.headers["Connection"] == "close")
    #expect(String(decoding: response.body, as: UTF8.self) == "too many header fields\n")
  }

  @Test func customReasonAndUnknownStatus() {
    #expect(text(HTTPResponse(status: 200, reason: "Fine")).hasPrefix("HTTP/1.1 200 Fine\r\n"))
    #expect(HTTPResponse(status: 299).reason == "")
    #expect(HTTPResponse.reasonPhrase(for: 505) == "HTTP Version Not Supported")
  }
}
