import SwitchboardClient
import SwitchboardTestSupport
import SwitchboardWebSocket
import Testing

/// RFC 6455 order on the client: an application's reply to a message leaves before the
/// close frame of a protocol error that came right behind that message, although the
/// application answers from its own task, later than the loop decodes.
@Suite(.onTestThreads)
struct WebSocketClientStrictTests {
  /// A raw WebSocket server in Python: answers the handshake, then sends in one write a text
  /// message and a frame with RSV2 set (a protocol error) — Autobahn 3.2's shape — and prints
  /// every frame the client sends, in order (`text PAYLOAD`, `close CODE`), until the close.
  static let server = """
    import base64, hashlib, socket, struct
    s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
    print("port", s.getsockname()[1], flush=True)
    c, _ = s.accept(); req = b""
    while b"\\r\\n\\r\\n" not in req: req += c.recv(4096)
    key = [l.split(b":", 1)[1].strip() for l in req.split(b"\\r\\n") if l.lower().startswith(b"sec-websocket-key:")][0]
    accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
    c.sendall(b"HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n"
              b"Sec-WebSocket-Accept: " + accept + b"\\r\\n\\r\\n" + b"\\x81\\x05hello" + b"\\xa1\\x03bad")
    buf = b""
    def read(n):
        global buf
        while len(buf) < n:
            chunk = c.recv(4096)
            if not chunk: raise SystemExit(print("eof", flush=True))
            buf += chunk
        out, buf = buf[:n], buf[n:]
        return out
    while True:
        b0, b1 = read(2)
        n = b1 & 0x7F
        if n == 126: n = struct.unpack(">H", read(2))[0]
        mask = read(4)
        payload = bytes(x ^ mask[i % 4] for i, x in enumerate(read(n)))
        if b0 & 0x0F == 1: print("text", payload.decode(), flush=True)
        if b0 & 0x0F == 8:
            print("close", struct.unpack(">H", payload[:2])[0], flush=True)
            break
    """

  @Test(.enabled(ifAvailable: PythonPeer.hasPython))
  func echoLeavesBeforeTheCloseOfABadFrameBehindIt() async throws {
    let peer = try PythonPeer.script(Self.server)
    defer { peer.stop() }
    let port = try await peer.waitForLine { line -> Int? in line.hasPrefix("port ") ? Int(line.dropFirst(5)) : nil }
    let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/")
    let closeCode: WebSocketCloseCode?? = try await withTimeout(.seconds(20)) {
      var code: WebSocketCloseCode?? = nil
      for await event in client.events {
        switch event {
        case .text(let text):
          // An application that takes its time: by now the loop has decoded the bad frame.
          for _ in 0..<50 { await Task.yield() }
          try await client.send(text: text)
        case .closed(let closed, _):
          code = closed
        default:
          break
        }
      }
      return code
    }
    #expect(closeCode == .some(.protocolError))
    try await peer.waitForOutput("close 1002")
    let frames = peer.stdout.split(separator: "\n").filter { $0.hasPrefix("text") || $0.hasPrefix("close") }
    #expect(frames == ["text hello", "close 1002"])
    await client.close()
  }
}
