import SwitchboardHTTP
import SwitchboardTestSupport
import Testing

@Suite(.onTestThreads)
struct HTTPResponseParserTests {
  static let switching =
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"

  @Test func switchingProtocolsIsParsedAndFramesRemain() throws {
    var parser = HTTPResponseParser()
    parser.append(Array(Self.switching.utf8) + [0x81, 0x02, 0x68, 0x69])
    let head = try #require(try parser.next())
    #expect(head.status == 101)
    #expect(head.reason == "Switching Protocols")
    #expect(head.version == .http1_1)
    #expect(head.headers["sec-websocket-accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    #expect(parser.takeRemainingBytes() == [0x81, 0x02, 0x68, 0x69])
  }

  @Test func headArrivesInPieces() throws {
    var parser = HTTPResponseParser()
    for byte in Self.switching.utf8.dropLast() {
      parser.append([byte])
      #expect(try parser.next() == nil)
    }
    parser.append(Array("\n".utf8))
    #expect(try parser.next()?.status == 101)
  }

  @Test(arguments: [
    ("HTTP/1.1 200 OK\r\n\r\n", 200, "OK"),
    ("HTTP/1.0 404 Not Found\n\n", 404, "Not Found"),
    ("HTTP/1.1 204\r\n\r\n", 204, ""),
    ("HTTP/1.1 400 \r\n\r\n", 400, ""),
    ("HTTP/1.1 500 Very  Bad Thing\r\n\r\n", 500, "Very  Bad Thing"),
  ])
  func statusLinesAreParsed(text: String, status: Int, reason: String) throws {
    var parser = HTTPResponseParser()
    parser.append(Array(text.utf8))
    let head = try #require(try parser.next())
    #expect(head.status == status)
    #expect(head.reason == reason)
  }

  @Test(arguments: [
    ("HTTP/1.1 20 OK\r\n\r\n", HTTPError.malformedStatusLine),
    ("HTTP/1.1 2000 OK\r\n\r\n", .malformedStatusLine),
    ("HTTP/1.1\r\n\r\n", .malformedStatusLine),
    ("ICY 200 OK\r\n\r\n", .malformedStatusLine),
    ("HTTP/2.0 200 OK\r\n\r\n", .unsupportedVersion),
    ("HTTP/1.1 200 OK\r\nBad Header\r\n\r\n", .malformedHeader),
    ("HTTP/1.1 200 OK\u{1}\r\n\r\n", .malformedStatusLine),
  ])
  func malformedResponsesAreRejected(text: String, expected: HTTPError) {
    var parser = HTTPResponseParser()
    parser.append(Array(text.utf8))
    #expect(throws: expected) { try parser.next() }
    #expect(throws: expected) { try parser.next() }
  }

  @Test func oversizeStatusLineIsRejected() {
    var parser = HTTPResponseParser(limits: HTTPLimits(maxStartLineLength: 32))
    parser.append(Array(("HTTP/1.1 200 " + String(repeating: "k", count: 40)).utf8))
    #expect(throws: HTTPError.startLineTooLong) { try parser.next() }
  }

  @Test func encodedResponsesParseBack() throws {
    var response = HTTPResponse(status: 101, headers: ["Upgrade": "websocket", "Connection": "Upgrade"])
    response.headers.add(name: "X", value: "1")
    var parser = HTTPResponseParser()
    parser.append(response.encode())
    let head = try #require(try parser.next())
    #expect(head == HTTPResponseHead(status: 101, reason: "Switching Protocols", headers: response.headers))
  }
}
