import SwitchboardHTTP
import SwitchboardTestSupport
import Testing

@testable import SwitchboardWebSocket

@Suite(.onTestThreads)
struct WebSocketHandshakeTests {
  static let key = "dGhlIHNhbXBsZSBub25jZQ=="

  func request(
    _ extra: [(String, String)] = [], method: String = "GET", version: HTTPVersion = .http1_1,
    drop: String? = nil, target: String = "/chat"
  ) -> HTTPRequestHead {
    var fields: [(String, String)] = [
      ("Host", "server.example.com"), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
      ("Sec-WebSocket-Key", Self.key), ("Origin", "http://example.com"), ("Sec-WebSocket-Version", "13"),
    ]
    if let drop { fields.removeAll { $0.0 == drop } }
    return HTTPRequestHead(
      method: method, target: target, version: version, headers: HTTPHeaders(fields + extra))
  }

  func accepted(_ result: WebSocketHandshake.ServerResult) -> WebSocketHandshake.ServerAccept? {
    if case .accept(let accept) = result { return accept }
    return nil
  }

  func rejectedStatus(_ result: WebSocketHandshake.ServerResult) -> Int? {
    if case .reject(let response, _) = result { return response.status }
    return nil
  }

  /// RFC 6455 section 1.3 (the brief quoted `…9kGi2YzlgBMxOo0=`, which is not the RFC's
  /// value; `openssl sha1 -binary | base64` agrees with this one).
  @Test func acceptValueMatchesRFCExample() {
    #expect(WebSocketHandshake.acceptValue(forKey: Self.key) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
  }

  @Test func base64RoundTrips() {
    for count in 0..<20 {
      let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
      #expect(Base64.decode(Base64.encode(bytes)) == bytes)
    }
    #expect(Base64.encode(Array("the sample nonce".utf8)) == Self.key)
  }

  @Test func serverAcceptsRFCRequest() throws {
    let accept = try #require(accepted(WebSocketHandshake.serverResponse(to: request())))
    let text = String(decoding: accept.responseBytes, as: UTF8.self)
    #expect(text.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
    #expect(text.contains("Upgrade: websocket\r\n"))
    #expect(text.contains("Connection: Upgrade\r\n"))
    #expect(text.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
    #expect(text.hasSuffix("\r\n\r\n"))
    #expect(!text.contains("Content-Length"))
    #expect(accept.origin == "http://example.com")
    #expect(accept.path == "/chat")
    #expect(accept.subprotocol == nil)
    #expect(accept.deflate == nil)
  }

  @Test func headerValuesAreCaseInsensitiveAndListsWork() throws {
    let head = HTTPRequestHead(
      method: "GET", target: "/rooms/lobby?format=text",
      headers: HTTPHeaders([
        ("host", "h"), ("upgrade", "WebSocket"), ("connection", "keep-alive, Upgrade"),
        ("sec-websocket-key", Self.key), ("sec-websocket-version", "13"),
      ]))
    let accept = try #require(accepted(WebSocketHandshake.serverResponse(to: head)))
    #expect(accept.path == "/rooms/lobby")
    #expect(accept.query == ["format": "text"])
    #expect(accept.origin == nil)
  }

  @Test func rejectsBadRequests() {
    #expect(rejectedStatus(WebSocketHandshake.serverResponse(to: request(method: "POST"))) == 405)
    #expect(rejectedStatus(WebSocketHandshake.serverResponse(to: request(version: .http1_0))) == 400)
    #expect(rejectedStatus(WebSocketHandshake.serverResponse(to: request(drop: "Upgrade"))) == 400)
    #expect(rejectedStatus(WebSocketHandshake.serverResponse(to: request(drop: "Connection"))) == 400)
    #expect(rejectedStatus(WebSocketHandshake.serverResponse(to: request(drop: "Sec-WebSocket-Key"))) == 400)
    #expect(
      rejectedStatus(WebSocketHandshake.serverResponse(to: request(drop: "Sec-WebSocket-Version"))) == 426)
  }

  @Test(arguments: [
    "", "abc", "dGhlIHNhbXBsZSBub25jZQ=", "dGhlIHNhbXBsZSBub25jZSE=", "dGhlIHNhbXBsZSBub25j!Q==",
    "dGhlIHNhbXBsZSBub25jZQ==dGhl",
  ])
  func rejectsInvalidKey(key: String) {
    var head = request(drop: "Sec-WebSocket-Key")
    head.headers.add(name: "Sec-WebSocket-Key", value: key)
    #expect(rejectedStatus(WebSocketHandshake.serverResponse(to: head)) == 400)
  }

  @Test(arguments: ["8", "12", "14", "", "13, 8"])
  func wrongVersionIs426WithSupportedVersion(value: String) {
    var head = request(drop: "Sec-WebSocket-Version")
    head.headers.add(name: "Sec-WebSocket-Version", value: value)
    guard case .reject(let response, _) = WebSocketHandshake.serverResponse(to: head) else {
      Issue.record("accepted version \(value)")
      return
    }
    #expect(response.status == 426)
    #expect(response.headers["Sec-WebSocket-Version"] == "13")
  }

  @Test func negotiatesSubprotocolInClientOrder() throws {
    let options = WebSocketHandshake.ServerOptions(subprotocols: ["chat", "superchat"])
    let head = request([("Sec-WebSocket-Protocol", "v2.json, superchat"), ("Sec-WebSocket-Protocol", "chat")])
    let accept = try #require(accepted(WebSocketHandshake.serverResponse(to: head, options: options)))
    #expect(accept.subprotocol == "superchat")
    #expect(accept.response.headers["Sec-WebSocket-Protocol"] == "superchat")
    let none = try #require(
      accepted(
        WebSocketHandshake.serverResponse(
          to: request([("Sec-WebSocket-Protocol", "mqtt")]), options: options)))
    #expect(none.subprotocol == nil)
    #expect(none.response.headers["Sec-WebSocket-Protocol"] == nil)
  }

  @Test func negotiatesDeflateOnlyWhenEnabled() throws {
    let head = request([("Sec-WebSocket-Extensions", "permessage-deflate; client_max_window_bits")])
    let off = try #require(accepted(WebSocketHandshake.serverResponse(to: head)))
    #expect(off.deflate == nil)
    #expect(off.response.headers["Sec-WebSocket-Extensions"] == nil)
    let options = WebSocketHandshake.ServerOptions(deflate: .init(serverNoContextTakeover: true))
    let on = try #require(accepted(WebSocketHandshake.serverResponse(to: head, options: options)))
    #expect(on.deflate == .init(serverNoContextTakeover: true))
    #expect(
      on.response.headers["Sec-WebSocket-Extensions"] == "permessage-deflate; server_no_context_takeover")
  }

  @Test func plainHeadersOverload() throws {
    let result = WebSocketHandshake.serverResponse(
      method: "GET", target: "/",
      headers: [
        ("Upgrade", "websocket"), ("Connection", "upgrade"), ("Sec-WebSocket-Key", Self.key),
        ("Sec-WebSocket-Version", "13"),
      ])
    #expect(accepted(result) != nil)
  }

  // MARK: Client

  @Test func clientRequestBytes() {
    let request = WebSocketHandshake.clientRequest(
      host: "server.example.com", path: "/chat", subprotocols: ["chat", "superchat"],
      extraHeaders: [("Origin", "http://example.com")], keyBytes: Array("the sample nonce".utf8))
    #expect(request.key == Self.key)
    let text = String(decoding: request.requestBytes, as: UTF8.self)
    #expect(
      text
        == "GET /chat HTTP/1.1\r\nHost: server.example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        + "Sec-WebSocket-Protocol: chat, superchat\r\nOrigin: http://example.com\r\n\r\n")
    let random1 = WebSocketHandshake.clientRequest(host: "h")
    let random2 = WebSocketHandshake.clientRequest(host: "h")
    #expect(WebSocketHandshake.isValidKey(random1.key))
    #expect(random1.key != random2.key)
  }

  func response(_ fields: [(String, String)], status: Int = 101) -> HTTPResponseHead {
    HTTPResponseHead(status: status, reason: "Switching Protocols", headers: HTTPHeaders(fields))
  }

  @Test func clientAndServerAgree() throws {
    let client = WebSocketHandshake.clientRequest(
      host: "h", path: "/rooms/a", subprotocols: ["chat"], deflate: .init(clientNoContextTakeover: true))
    let options = WebSocketHandshake.ServerOptions(subprotocols: ["chat"], deflate: .init())
    let accept = try #require(accepted(WebSocketHandshake.serverResponse(to: client.head, options: options)))
    // Parse the server's bytes back with the HTTP response parser, as a real client would.
    var parser = HTTPResponseParser()
    parser.append(accept.responseBytes)
    let head = try #require(try parser.next())
    let result = try client.validate(head)
    #expect(result.subprotocol == "chat")
    #expect(result.deflate == accept.deflate)
    #expect(result.deflate?.clientNoContextTakeover == true)
  }

  @Test func clientRejectsBadResponses() {
    let client = WebSocketHandshake.clientRequest(
      host: "h", subprotocols: ["chat"], keyBytes: Array("the sample nonce".utf8))
    let good: [(String, String)] = [
      ("Upgrade", "websocket"), ("Connection", "Upgrade"),
      ("Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
    ]
    #expect((try? client.validate(response(good))) != nil)
    let bad: [HTTPResponseHead] = [
      response(good, status: 200),
      response(good.filter { $0.0 != "Upgrade" }),
      response(good.filter { $0.0 != "Connection" }),
      response(good.filter { $0.0 != "Sec-WebSocket-Accept" }),
      response(good.dropLast() + [("Sec-WebSocket-Accept", "xxxx")]),
      response(good + [("Sec-WebSocket-Protocol", "superchat")]),
      response(good + [("Sec-WebSocket-Extensions", "permessage-deflate")]),  // not offered
    ]
    for head in bad {
      #expect(throws: WebSocketError.handshakeFailed) { _ = try client.validate(head) }
    }
  }
}
