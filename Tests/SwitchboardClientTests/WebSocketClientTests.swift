import SwitchboardClient
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The client against a real server nobody here wrote: Python `websockets`.
@Suite(.onTestThreads, .serialized, .enabled(ifAvailable: PythonPeer.hasWebsockets, "python3 -c 'import websockets' failed"))
struct WebSocketClientTests {
  @Test func textMessageIsEchoed() async throws {
    let (server, port) = try await PythonPeer.echoServer()
    defer { server.stop() }
    let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/echo")
    #expect(client.response.status == 101)
    #expect(!client.isCompressed)
    try await client.send(text: "héllo, wörld ✓")
    #expect(try await client.nextMessage() == .text("héllo, wörld ✓"))
    await client.close()
  }

  @Test func binaryMessageIsEchoed() async throws {
    let (server, port) = try await PythonPeer.echoServer()
    defer { server.stop() }
    let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/")
    let bytes: [UInt8] = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    try await client.send(binary: bytes)
    try await client.send(binary: [])
    #expect(try await client.nextMessage() == .binary(bytes))
    #expect(try await client.nextMessage() == .binary([]))
    await client.close()
  }

  @Test func sixteenMebibyteMessageRoundTrips() async throws {
    let (server, port) = try await PythonPeer.echoServer()
    defer { server.stop() }
    let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/")
    // Pseudo-random words (xorshift64), appended in bulk: fast in debug builds too.
    var words = [UInt64](repeating: 0, count: (16 << 20) / 8)
    var state = UInt64.random(in: 1 ... .max)
    for i in words.indices {
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      words[i] = state
    }
    let bytes = words.withUnsafeBytes { [UInt8]($0) }
    try await client.send(binary: bytes)
    let echoed = try await client.nextMessage(timeout: .seconds(60))
    guard case .binary(let received) = echoed else {
      Issue.record("expected a binary message, got \(String(describing: echoed).prefix(100))")
      return
    }
    #expect(received.count == bytes.count)
    let same = received.withUnsafeBytes { a in
      bytes.withUnsafeBytes { b in memcmp(a.baseAddress!, b.baseAddress!, b.count) == 0 }
    }
    #expect(same)
    await client.close()
  }

  @Test func messageOverTheLimitFailsWith1009() async throws {
    let (server, port) = try await PythonPeer.echoServer()
    defer { server.stop() }
    let client = try await WebSocketClient.connect(
      to: "ws://127.0.0.1:\(port)/", configuration: .init(maxMessageSize: 1000))
    try await client.send(binary: [UInt8](repeating: 1, count: 1001))
    guard case .closed(let code, _) = try await client.nextMessage() else {
      Issue.record("expected the connection to close")
      return
    }
    #expect(code == 1009)
    try await server.waitForOutput("closed 1009")
    await client.close()
  }

  @Test(arguments: [true, false])
  func compressionIsNegotiatedWhenBothSidesWantIt(serverCompresses: Bool) async throws {
    let (server, port) = try await PythonPeer.echoServer(compression: serverCompresses)
    defer { server.stop() }
    let client = try await WebSocketClient.connect(
      to: "ws://127.0.0.1:\(port)/", configuration: .init(compression: true))
    #expect(client.isCompressed == serverCompresses)
    #expect(
      (client.response.headers["Sec-WebSocket-Extensions"]?.contains("permessage-deflate") ?? false)
        == serverCompresses)
    let text = String(repeating: "compressible text ", count: 10_000)
    let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 % 251) }
    for _ in 0..<3 {  // more than one message exercises context takeover
      try await client.send(text: text)
      try await client.send(binary: bytes)
      #expect(try await client.nextMessage() == .text(text))
      #expect(try await client.nextMessage() == .binary(bytes))
    }
    await client.close()
    try await server.waitForOutput("closed 1000")
  }

  @Test func compressionIsNotOfferedWhenOff() async throws {
    let (server, port) = try await PythonPeer.echoServer(compression: true)
    defer { server.stop() }
    let client = try await WebSocketClient.connect(
      to: "ws://127.0.0.1:\(port)/", configuration: .init(compression: false))
    #expect(!client.isCompressed)
    #expect(client.response.headers["Sec-WebSocket-Extensions"] == nil)
    try await client.send(text: "plain")
    #expect(try await client.nextMessage() == .text("plain"))
    await client.close()
  }

  @Test func pingIsAnsweredWithPong() async throws {
    let (server, port) = try await PythonPeer.echoServer()
    defer { server.stop() }
    let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/")
    try await client.ping([1, 2, 3])
    #expect(try await client.nextEvent() == .pong([1, 2, 3]))
    await #expect(throws: WebSocketClientError.protocolError) {
      try await client.ping([UInt8](repeating: 0, count: 126))
    }
    await client.close()
  }

  @Test func serverPingArrivesAsEventAndIsAnswered() async throws {
    let (server, port) = try await PythonPeer.echoServer()
    defer { server.stop() }
    let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/ping")
    #expect(try await client.nextEvent() == .ping(Array("hello".utf8)))
    // The server awaits our pong before echoing, so an echo proves the pong arrived.
    try await client.send(text: "after ping")
    #expect(try await client.nextMessage() == .text("after ping"))
    await client.close()
  }

  @Test func closeHandshakeCarriesCodeAndReason() async throws {
    let (server, port) = try await PythonPeer.echoServer()
    defer { server.stop() }
    let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/")
    await client.close(code: 4000, reason: "done here")
    try await server.waitForOutput("closed 4000 done here")
    guard case .closed(let code, _) = try await client.nextEvent() else {
      Issue.record("expected .closed")
      return
    }
    #expect(code == 4000)  // the server echoes the code
    #expect(try await client.nextEvent() == nil)
    await #expect(throws: WebSocketClientError.closed) { try await client.send(text: "too late") }
    await client.close()  // a second close returns at once
  }

  @Test func serverInitiatedCloseEndsTheStream() async throws {
    let (server, port) = try await PythonPeer.echoServer()
    defer { server.stop() }
    let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/close")
    #expect(try await client.nextEvent() == .closed(code: 4001, reason: "bye"))
    #expect(try await client.nextEvent() == nil)
    await #expect(throws: WebSocketClientError.closed) { try await client.send(binary: [1]) }
    try await server.waitForOutput("closed 4001")  // our echo carries the code only
    await client.close()
  }

  @Test func releasingTheClientClosesWithGoingAway() async throws {
    let (server, port) = try await PythonPeer.echoServer()
    defer { server.stop() }
    do {
      let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/")
      try await client.send(text: "x")
    }
    try await server.waitForOutput("closed 1001")
  }

  @Test func cancellingTheConsumerClosesTheConnection() async throws {
    let (server, port) = try await PythonPeer.echoServer()
    defer { server.stop() }
    let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/")
    let consumer = Task {
      for await _ in client.events {}
    }
    consumer.cancel()
    await consumer.value
    try await server.waitForOutput("closed 1001")
    await client.close()
  }

  @Test func subprotocolAndExtraHeadersAreSent() async throws {
    let (server, port) = try await PythonPeer.echoServer(subprotocols: ["chat.v1"])
    defer { server.stop() }
    let client = try await WebSocketClient.connect(
      to: "ws://127.0.0.1:\(port)/info?x=1",
      configuration: .init(extraHeaders: [("X-Test", "yes")], subprotocols: ["chat.v2", "chat.v1"]))
    #expect(client.subprotocol == "chat.v1")
    #expect(try await client.nextMessage() == .text("chat.v1"))
    #expect(try await client.nextMessage() == .text("yes"))
    await client.close()
  }

  @Test func concurrentSendersKeepWholeMessagesInPerCallerOrder() async throws {
    let (server, port) = try await PythonPeer.echoServer()
    defer { server.stop() }
    let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/")
    let senders = 8
    let perSender = 200
    try await withThrowingTaskGroup(of: Void.self) { group in
      for sender in 0..<senders {
        group.addTask {
          for n in 0..<perSender {
            // Large enough that frames span several writes.
            let padding = String(repeating: "\(sender)", count: 2000 + n)
            try await client.send(text: "\(sender) \(n) \(padding)")
          }
        }
      }
      try await group.waitForAll()
    }
    var next = [Int](repeating: 0, count: senders)
    for _ in 0..<(senders * perSender) {
      guard case .text(let text) = try await client.nextMessage() else {
        Issue.record("expected text")
        break
      }
      let parts = text.split(separator: " ")
      let sender = Int(parts[0])!
      let n = Int(parts[1])!
      #expect(n == next[sender], "sender \(sender) out of order")
      #expect(parts[2] == Substring(String(repeating: "\(sender)", count: 2000 + n)))
      next[sender] = n + 1
    }
    #expect(next == [Int](repeating: perSender, count: senders))
    await client.close()
  }
}
