import Foundation
import SwitchboardIO
import SwitchboardServer
import SwitchboardTLS
import SwitchboardTestSupport
import SwitchboardWebSocket
import Testing

/// The rows of docs/BAD-INPUT.md that no other suite checks: each input sent over a real
/// socket to an in-process server, and the exact documented answer expected, so a test fails
/// when an answer changes. `BadInputTableTests` checks that every row cites a test that exists.
@Suite(.onTestThreads)
struct BadInputTests {
  // MARK: TCP lines

  /// Invalid UTF-8 at the start, in the middle, at the end (a sequence cut short), overlong
  /// and surrogate encodings: each maximal bad subsequence becomes one U+FFFD.
  @Test(
    arguments: [
      ([0xFF, 0x61, 0x62], "\u{FFFD}ab"),
      ([0x61, 0xFE, 0x62], "a\u{FFFD}b"),
      ([0x61, 0x62, 0xE2, 0x82], "ab\u{FFFD}"),
      ([0xC0, 0xAF, 0x61], "\u{FFFD}\u{FFFD}a"),
      ([0x61, 0xED, 0xA0, 0x80], "a\u{FFFD}\u{FFFD}\u{FFFD}"),
      ([0xF4, 0x90, 0x80, 0x80, 0x61], "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}a"),
    ] as [([UInt8], String)])
  func invalidUTF8AtEveryPositionOfALineBecomesReplacementCharacters(bytes: [UInt8], text: String)
    async throws
  {
    try await withServer { server in
      let (reader, writer) = try linePair(server)
      try writer.send(bytes + [0x0A])
      #expect(try reader.expectLine { $0.hasPrefix("w: ") } == "w: " + text)
    }
  }

  @Test func emptyLinesAreIgnored() async throws {
    try await withServer { server in
      let (reader, writer) = try linePair(server)
      try writer.send("\n\r\n\n")
      try writer.sendLine("after")
      // The next thing the reader hears is the message after the empty lines.
      #expect(try reader.readLine() == "w: after")
    }
  }

  @Test(arguments: ["iam:", "iam:   ", "iam:\u{7}\u{1B}", "/nick \u{200B}"])
  func aNameWithoutAVisibleCharacterIsRefused(line: String) async throws {
    try await withServer { server in
      let client = try LineClient(server.tcpAddress!)
      try client.sendLine(line)
      try client.expectLine("! a name needs at least one visible character")
    }
  }

  @Test func controlCharactersLeaveNamesAndLongNamesAreCut() async throws {
    try await withServer { server in
      let client = try LineClient(server.tcpAddress!)
      try client.sendLine("iam:a\u{1}b\u{7F}c")
      try client.sendLine("/who")
      try client.expectLine("* in lobby (1): abc")
      try client.sendLine("iam:" + String(repeating: "n", count: 100))
      try client.sendLine("/who")
      try client.expectLine("* in lobby (1): " + String(repeating: "n", count: 64))
    }
  }

  @Test(arguments: [
    ("/join a/b", "! usage: /join ROOM (1-64 letters, digits, - _ .)"),
    ("/join %2e%2e", "! usage: /join ROOM (1-64 letters, digits, - _ .)"),
    ("/join " + String(repeating: "r", count: 65), "! usage: /join ROOM (1-64 letters, digits, - _ .)"),
    // Letters (L*, up to two marks each) and decimal digits (Nd) only: no stacked or
    // stray marks, no other numbers.
    ("/join a\u{301}\u{302}\u{303}\u{304}", "! usage: /join ROOM (1-64 letters, digits, - _ .)"),
    ("/join half\u{BD}", "! usage: /join ROOM (1-64 letters, digits, - _ .)"),
    ("/join n\u{2460}", "! usage: /join ROOM (1-64 letters, digits, - _ .)"),
    ("/history ten", "! usage: /history [N]"),
    ("/history -1", "! usage: /history [N]"),
    ("/since -1", "! usage: /since ID"),
    ("/since 1.5", "! usage: /since ID"),
    ("/nick", "! usage: /nick NAME"),
    ("/me", "! usage: /me ACTION"),
    ("/frobnicate now", "! unknown command /frobnicate (try /help)"),
  ])
  func badCommandArgumentsGetTheirUsageAndTheConnectionStays(line: String, answer: String) async throws {
    try await withServer { server in
      let client = try LineClient(server.tcpAddress!)
      try client.join(as: "c")
      try client.sendLine(line)
      try client.expectLine(answer)
      try client.sendLine("/who")
      try client.expectLine("* in lobby (1): c")
    }
  }

  @Test func sinceBeyondTheLastIDReplaysNothing() async throws {
    try await withServer { server in
      let client = try LineClient(server.tcpAddress!)
      try client.join(as: "c")
      try client.sendLine("one")
      try client.sendLine("/since 18446744073709551615")
      try client.expectLine("* no kept messages in lobby")
    }
  }

  /// Rooms are names, never files: `.` and `..` are ordinary room names.
  @Test func aRoomNamedLikeAPathIsAnOrdinaryRoom() async throws {
    try await withServer { server in
      let client = try LineClient(server.tcpAddress!)
      try client.join(as: "c")
      try client.sendLine("/join ..")
      try client.expectLine("* you are now in .. (1 member)")
      try client.sendLine("/rooms")
      try client.expectLine("* rooms: .. (1)")
    }
  }

  /// The real binary under an open-file limit of 100 and no connection cap: 150 clients
  /// leave it out of descriptors, so accept fails with EMFILE. It must pause accepting
  /// rather than spin (CPU time over 2 s stays far below 2 s), and serve again once the
  /// clients are gone.
  @Test(
    .enabled(ifAvailable: Executables.switchboard != nil, "needs the switchboard binary"),
    .enabled(ifAvailable: ProcFS.available, ProcFS.needed))
  func outOfDescriptorsPausesAcceptingWithoutSpinning() async throws {
    let server = try await ServeProcess.start(
      ["--ephemeral", "--max-connections", "0", "--loops", "1"], listeners: [.tcp],
      wrapper: ["/bin/sh", "-c", #"ulimit -n 100 && exec "$0" "$@""#])
    defer { server.stop() }
    let address = try SocketAddress(host: "127.0.0.1", port: server.tcp)
    var clients: [LineClient] = []
    for _ in 0..<150 { clients.append(try LineClient(address)) }
    try clients[0].join(as: "first")
    try await eventually("out of descriptors") {
      server.stderr.contains("EMFILE") || ((try? ProcFS.openDescriptors(server.pid)) ?? 0) >= 99
    }
    let before = try ProcFS.cpuTicks(server.pid)
    let start = ContinuousClock.now
    while ContinuousClock.now - start < .seconds(2) { _ = clients.last!.fill(timeout: .milliseconds(200)) }
    let spent = try ProcFS.cpuTicks(server.pid) - before
    #expect(spent < 60, "\(spent) ticks of CPU in 2 s while out of descriptors")
    clients.removeAll()
    try await eventually("served again") {
      guard let again = try? LineClient(address) else { return false }
      return (try? again.join(as: "again", timeout: .seconds(2))) != nil
    }
  }


  // MARK: UDP

  @Test func aDatagramCommandIsEchoedThenAnswered() async throws {
    try await withServer { server in
      let peer = try DatagramPeer(server.udpAddress!)
      try peer.prove()
      try peer.send("/frobnicate\n")
      try peer.expect { $0 == "Server received: /frobnicate\n" }
      try peer.expect { $0 == "! unknown command /frobnicate (try /help)\n" }
    }
  }

  @Test func invalidUTF8InADatagramBecomesReplacementCharacters() async throws {
    try await withServer { server in
      let reader = try LineClient(server.tcpAddress!)
      try reader.join(as: "reader")
      let peer = try DatagramPeer(server.udpAddress!)
      try peer.prove()
      try peer.send("iam:u\n")
      try peer.expect { $0 == "Server received: iam:u\n" }
      try peer.send([0x68, 0xFF, 0x69, 0x0A])
      #expect(try reader.expectLine { $0.hasPrefix("u: ") } == "u: h\u{FFFD}i")
    }
  }

  // MARK: HTTP

  /// Each malformed request gets its status and `Connection: close`; the server closes.
  @Test(arguments: [
    ("GARBAGE\r\n\r\n", 400),
    ("GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n", 400),
    ("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n", 400),
    ("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414),
    ("GET / HTTP/1.1\r\n" + (0..<101).map { "X-\($0): v\r\n" }.joined() + "\r\n", 431),
    ("GET / HTTP/1.1\r\nX-Big: " + String(repeating: "b", count: 17_000) + "\r\n\r\n", 431),
    ("GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
    ("GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
    ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n", 413),
  ])
  func malformedHTTPRequestsGetTheirStatusAndAreClosed(request: String, status: Int) async throws {
    try await withServer { server in
      let client = try LineClient(server.httpAddress!)
      try client.send(request)
      let head = try responseHead(client)
      #expect(head.first?.hasPrefix("HTTP/1.1 \(status) ") == true, "\(head)")
      #expect(head.contains { $0.lowercased() == "connection: close" }, "\(head)")
      try client.expectClosed()
    }
  }

  /// Paths that climb out of the root, raw or percent-encoded: matched as text, no file is
  /// ever opened. Under `/rooms/` any path is the (one, built-in) chat page.
  @Test(arguments: [
    ("/../../etc/passwd", "HTTP/1.1 404 Not Found"),
    ("/%2e%2e/%2e%2e/etc/passwd", "HTTP/1.1 404 Not Found"),
    ("/%00", "HTTP/1.1 404 Not Found"),
    ("/metrics/..", "HTTP/1.1 404 Not Found"),
    ("/rooms/../../etc/passwd", "HTTP/1.1 200 OK"),
  ])
  func pathTricksAreMatchedAsText(path: String, status: String) async throws {
    try await withServer { server in
      let client = try LineClient(server.httpAddress!)
      try client.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
      let head = try responseHead(client)
      #expect(head.first == status, "\(head)")
      if status.hasSuffix("200 OK") { try client.expectLine { $0.contains("id=\"messages\"") } }
    }
  }

  @Test func otherMethodsGet405WithAllow() async throws {
    try await withServer { server in
      let client = try LineClient(server.httpAddress!)
      try client.send("DELETE / HTTP/1.1\r\nHost: x\r\n\r\n")
      let head = try responseHead(client)
      #expect(head.first?.hasPrefix("HTTP/1.1 405 ") == true, "\(head)")
      #expect(head.contains("Allow: GET, HEAD"), "\(head)")
    }
  }

  /// A good request, then a bad one in the same pipeline: the first is answered, the second
  /// gets its 400 and nothing after it is read.
  @Test func aBadRequestInAPipelineEndsTheConnectionAfterTheGoodOnes() async throws {
    try await withServer { server in
      let client = try LineClient(server.httpAddress!)
      try client.send(
        "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nBROKEN\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try responseHead(client).first == "HTTP/1.1 200 OK")
      try client.expectLine("ok")
      #expect(try responseHead(client).first?.hasPrefix("HTTP/1.1 400 ") == true)
      try client.expectClosed()
      #expect(!String(decoding: client.bufferedBytes, as: UTF8.self).contains("200 OK"))
    }
  }

  @Test func aConnectionThatSendsNothingGets408() async throws {
    try await withServer({ $0.limits.httpRequestTimeout = .milliseconds(500) }) { server in
      let client = try LineClient(server.httpAddress!)
      #expect(try responseHead(client).first?.hasPrefix("HTTP/1.1 408 ") == true)
      try client.expectClosed()
    }
  }

  /// After a complete response a keep-alive connection may wait for its next request, for
  /// 30 s (not configurable; the longest test of the suite).
  @Test func aKeepAliveConnectionIdleFor30SecondsIsClosed() async throws {
    try await withServer { server in
      let client = try LineClient(server.httpAddress!)
      try client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try responseHead(client).first == "HTTP/1.1 200 OK")
      let answered = ContinuousClock.now
      try client.expectClosed(timeout: .seconds(45))
      let idle = ContinuousClock.now - answered
      #expect(idle >= .seconds(29), "closed after \(idle)")
    }
  }

  // MARK: WebSocket upgrades

  @Test(arguments: [
    (
      "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n",
      400
    ),
    (upgrade("/", key: "c2hvcnQ="), 400),
    (upgrade("/rooms/a%2Fb"), 400),
    (upgrade("/rooms/" + String(repeating: "r", count: 65)), 400),
    (upgrade("/rooms/x/y"), 400),
    (upgrade("/chat"), 404),
    (upgrade("/", method: "POST"), 405),
  ])
  func badUpgradeRequestsGetHTTPErrors(request: String, status: Int) async throws {
    try await withServer { server in
      let client = try LineClient(server.httpAddress!)
      try client.send(request)
      let head = try responseHead(client)
      #expect(head.first?.hasPrefix("HTTP/1.1 \(status) ") == true, "\(head)")
    }
  }

  /// `/rooms/%2e%2e` decodes to the room `..`: an ordinary name, as on the line port.
  @Test func aPercentEncodedDotDotRoomIsAnOrdinaryRoom() async throws {
    try await withServer { server in
      let ws = try WebSocketTestClient(server.httpAddress!, path: "/rooms/%2e%2e?name=p")
      _ = try ws.nextJSON(type: "history")
      try await eventually("joined ..") { server.hub.who(room: "..") == ["p"] }
    }
  }

  @Test func aBadSinceInTheQueryIsAnErrorAndTheJoinGoesOn() async throws {
    try await withServer { server in
      let ws = try WebSocketTestClient(server.httpAddress!, path: "/?since=minus1&name=q")
      let error = try ws.nextJSON(type: "error")
      #expect(data(error)["code"] as? String == "invalid_data")
      #expect(data(error)["message"] as? String == "since must be a non-negative integer")
      _ = try ws.nextJSON(type: "history")
    }
  }

  // MARK: WebSocket frames

  /// Each malformed frame (masked with a zero key unless the row is about masking) and the
  /// close code the server answers with, after its welcome frames.
  @Test(
    arguments: [
      ("unmasked", frame(0x1, Array("hi".utf8), masked: false), 1002),
      ("reserved data opcode", frame(0x3, []), 1002),
      ("reserved control opcode", frame(0xB, []), 1002),
      ("RSV1 without permessage-deflate", frame(0x1, Array("hi".utf8), rsv: 0x40), 1002),
      ("RSV2", frame(0x1, Array("hi".utf8), rsv: 0x20), 1002),
      ("fragmented ping", frame(0x9, [], fin: false), 1002),
      ("ping over 125 bytes", frame(0x9, [UInt8](repeating: 0x70, count: 126)), 1002),
      ("continuation without a start", frame(0x0, Array("x".utf8)), 1002),
      (
        "new message inside a fragmented one",
        frame(0x1, Array("a".utf8), fin: false) + frame(0x1, Array("b".utf8)), 1002
      ),
      ("close with a 1-byte payload", frame(0x8, [0x03]), 1002),
      ("close code 1005 on the wire", frame(0x8, [0x03, 0xED]), 1002),
      ("close code 999", frame(0x8, [0x03, 0xE7]), 1002),
      ("close reason not UTF-8", frame(0x8, [0x03, 0xE8, 0xFF]), 1007),
      ("invalid UTF-8 first", frame(0x1, [0xFF, 0x61]), 1007),
      ("invalid UTF-8 in the middle", frame(0x1, [0x61, 0xC3, 0x28, 0x62]), 1007),
      ("UTF-8 cut at the end of the message", frame(0x1, [0x61, 0xE2, 0x82]), 1007),
      ("invalid UTF-8 across fragments", frame(0x1, [0x61, 0xE2], fin: false) + frame(0x0, [0x41]), 1007),
      ("surrogate in a text frame", frame(0x1, [0xED, 0xA0, 0x80]), 1007),
      ("frame over --max-message-size", Array(frame(0x2, [], length: 1025).prefix(8)), 1009),
      (
        "fragments over --max-message-size",
        frame(0x2, [UInt8](repeating: 1, count: 600), fin: false)
          + frame(0x0, [UInt8](repeating: 1, count: 600)), 1009
      ),
      ("64-bit length with the top bit set", Array(frame(0x2, [], length: Int.max).prefix(14)), 1002),
    ] as [(String, [UInt8], UInt16)])
  func malformedFramesGetTheirCloseCode(name: String, bytes: [UInt8], code: UInt16) async throws {
    try await withServer({ $0.maxMessageSize = 1024 }) { server in
      let ws = try WebSocketTestClient(server.httpAddress!, path: "/?name=f")
      _ = try ws.nextJSON(type: "history")
      try ws.sendRaw(bytes)
      #expect(try ws.nextClose() == WebSocketCloseCode(code), "\(name)")
      try ws.socket.expectClosed()
    }
  }

  /// Half a frame, then the socket ends: the member leaves; the room sees it go.
  @Test func aTruncatedFrameThenEOFLeavesTheRoom() async throws {
    try await withServer { server in
      let watcher = try WebSocketTestClient(server.httpAddress!, path: "/?name=watcher")
      _ = try watcher.nextJSON(type: "history")
      do {
        let cut = try WebSocketTestClient(server.httpAddress!, path: "/?name=cut")
        _ = try cut.nextJSON(type: "history")
        _ = try watcher.nextJSON(type: "presence") { (data($0)["author"] as? String) == "cut" }
        try cut.sendRaw(Array(frame(0x1, [UInt8](repeating: 0x61, count: 100)).prefix(40)))
      }
      let left = try watcher.nextJSON(type: "presence") { data($0)["event"] as? String == "leave" }
      #expect(data(left)["author"] as? String == "cut")
    }
  }

  // MARK: JSON protocol

  /// Text that is not a JSON object is a message (the name, when none is set yet), never an
  /// error: the seed page sends plain text.
  @Test(arguments: [#"{"type":"#, "[1,2]", "\"quoted\"", "null", "{\"type\":\"message\"} trailing"])
  func textThatIsNotAJSONObjectIsAMessage(text: String) async throws {
    try await withServer { server in
      let ws = try WebSocketTestClient(server.httpAddress!, path: "/?name=j")
      _ = try ws.nextJSON(type: "history")
      try ws.send(text: text)
      let message = try ws.nextJSON(type: "message")
      #expect(data(message)["text"] as? String == text)
    }
  }

  @Test(arguments: [
    (#"{"type":"frob","data":1}"#, "unknown_type"),
    (#"{"data":"x"}"#, "invalid_type"),
    (#"{"type":5}"#, "invalid_type"),
    (#"{"type":"message","data":{"text":5}}"#, "invalid_data"),
    (#"{"type":"message","data":{"text":"x","ref":{}}}"#, "invalid_data"),
    (#"{"type":"join","data":{"since":-1}}"#, "invalid_data"),
    (#"{"type":"join","data":{"since":1.5}}"#, "invalid_data"),
    (#"{"type":"join","data":{"room":"a/b"}}"#, "invalid_data"),
    (#"{"type":"join","data":{"room":"%2e%2e%2f"}}"#, "invalid_data"),
    (#"{"type":"join","data":{"name":7}}"#, "invalid_data"),
  ])
  func unusableJSONObjectsGetAnErrorAndTheConnectionStays(text: String, code: String) async throws {
    try await withServer { server in
      let ws = try WebSocketTestClient(server.httpAddress!, path: "/?name=e")
      _ = try ws.nextJSON(type: "history")
      try ws.send(text: text)
      #expect(data(try ws.nextJSON(type: "error"))["code"] as? String == code)
      try ws.send(text: "still here")
      #expect(data(try ws.nextJSON(type: "message"))["text"] as? String == "still here")
    }
  }

  /// 100,000 nested arrays in one object (well under the size limit) is an error, not a
  /// stack overflow.
  @Test func deeplyNestedJSONIsAnErrorNotACrash() async throws {
    try await withServer { server in
      let ws = try WebSocketTestClient(server.httpAddress!, path: "/?name=n")
      _ = try ws.nextJSON(type: "history")
      let depth = 100_000
      try ws.send(
        text: #"{"type":"message","data":"# + String(repeating: "[", count: depth)
          + String(repeating: "]", count: depth) + "}")
      let answer = try ws.next(timeout: .seconds(10))
      guard case .text(let text) = answer else { throw TestFailure("got \(answer)") }
      #expect(!text.isEmpty)
      try ws.send(text: "still here")
      _ = try ws.nextJSON(type: "message") { data($0)["text"] as? String == "still here" }
    }
  }

  @Test func sinceBeyondTheLastIDOrAnotherEpochIsReportedNotRecovered() async throws {
    try await withServer { server in
      let a = try WebSocketTestClient(server.httpAddress!, path: "/?name=a")
      _ = try a.nextJSON(type: "history")
      try a.send(text: #"{"type":"message","data":{"text":"one","ref":1}}"#)
      _ = try a.nextJSON(type: "ack")
      let future = try WebSocketTestClient(server.httpAddress!, path: "/?name=b&since=99")
      let h1 = try future.nextJSON(type: "history")
      #expect(h1["recovered"] as? Bool == false)
      #expect((h1["data"] as? [Any])?.isEmpty == true)
      let other = try WebSocketTestClient(server.httpAddress!, path: "/?name=c&since=1&epoch=not-this-one")
      let h2 = try other.nextJSON(type: "history")
      #expect(h2["recovered"] as? Bool == false)
      #expect((h2["data"] as? [[String: Any]])?.map { $0["text"] as? String } == ["one"])
    }
  }

  // MARK: TLS ports

  /// Plain text on the TLS line and HTTPS ports: the handshake fails, the connection is
  /// closed, the server goes on serving.
  @Test(
    .enabled(ifAvailable: TestPKI.hasOpenSSL, "needs the openssl CLI for the test certificates"),
    .enabled(ifAvailable: TLSSupport.isAvailable, "needs TLS (TLSSupport)"))
  func plainTextOnTheTLSPortsIsClosed() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    try await withServer({
      $0.tlsCertificates = [ServerCertificate(certificateFile: pki.serverCertificate, keyFile: pki.serverKey)]
    }) { server in
      for address in [server.tlsAddress, server.httpsAddress] {
        let client = try LineClient(try #require(address))
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        try client.expectClosed(timeout: .seconds(10))
        #expect(!String(decoding: client.bufferedBytes, as: UTF8.self).contains("HTTP/1.1"))
      }
      let health = try LineClient(server.httpAddress!)
      try health.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try responseHead(health).first == "HTTP/1.1 200 OK")
    }
  }

  // MARK: Helpers

  /// A reader that hears `w`'s messages, and `w`.
  /// The status line and headers of the next response (without CRs).
  private func responseHead(_ client: LineClient) throws -> [String] {
    var lines: [String] = []
    while true {
      let line = try client.readLine()
      let bare = line.hasSuffix("\r") ? String(line.dropLast()) : line
      if bare.isEmpty { return lines }
      lines.append(bare)
    }
  }

  private func data(_ frame: [String: Any]) -> [String: Any] { frame["data"] as? [String: Any] ?? [:] }
}

/// A WebSocket upgrade request for `path`.
private func upgrade(_ path: String, key: String = "dGhlIHNhbXBsZSBub25jZQ==", method: String = "GET")
  -> String
{
  "\(method) \(path) HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
}

/// A client frame: FIN (unless `fin` is false), `rsv` bits, the opcode, the length
/// (`length` when given, else the payload's), a zero masking key, the payload.
private func frame(
  _ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, masked: Bool = true,
  length: Int? = nil
) -> [UInt8] {
  var bytes: [UInt8] = [(fin ? 0x80 : 0) | rsv | opcode]
  let n = length ?? payload.count
  let mask: UInt8 = masked ? 0x80 : 0
  if n < 126 {
    bytes.append(mask | UInt8(n))
  } else if n < 65536 {
    bytes += [mask | 126, UInt8(n >> 8), UInt8(n & 0xFF)]
  } else {
    bytes.append(mask | 127)
    let big = n == Int.max ? UInt64.max : UInt64(n)
    bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: big >> (8 * UInt64($0))) }
  }
  if masked { bytes += [0, 0, 0, 0] }
  return bytes + payload
}
