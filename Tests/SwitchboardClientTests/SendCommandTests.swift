import Foundation
import SwitchboardClient
import SwitchboardServer
import SwitchboardTLS
import SwitchboardTestSupport
import Testing

/// `switchboard send` (and `chat --pipe`) over every scheme: the real binary against a real
/// in-process server, a second client that must receive the message, and for `wss://` and
/// `tls://` a python `ssl` forwarder (a TLS peer nobody here wrote) in front of the server's
/// plaintext ports, with certificates from ``TestPKI``.
@Suite(.onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "switchboard binary not built"))
struct SendCommandTests {
  /// Terminates TLS with the certificate and key in argv 1 and 2 and forwards the plaintext
  /// to 127.0.0.1:argv 3; prints its port, then per connection `first LINE` (the client's
  /// first line: the request line, or `auth:`/`iam:`) or `handshake error …`.
  static let tlsForwarder = """
    import os, socket, ssl, sys, threading
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[1], sys.argv[2])
    target = int(sys.argv[3])
    srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(8)
    print("port", srv.getsockname()[1], flush=True)
    threading.Timer(60, lambda: os._exit(0)).start()
    def pump(src, dst, report, end):
        buf = b""
        try:
            while True:
                data = src.recv(65536)
                if not data: break
                if report:
                    buf += data
                    if b"\\n" in buf:
                        print("first", buf.split(b"\\n")[0].decode(errors="replace").rstrip("\\r"), flush=True)
                        report = False
                dst.sendall(data)
        except Exception:
            pass
        end()
    def serve(conn):
        try:
            tls = ctx.wrap_socket(conn, server_side=True)
        except Exception as e:
            print("handshake error", e, flush=True); return
        up = socket.create_connection(("127.0.0.1", target))
        threading.Thread(target=pump, args=(up, tls, False, tls.close), daemon=True).start()
        pump(tls, up, True, lambda: up.shutdown(socket.SHUT_WR))
    while True:
        c, _ = srv.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()
    """

  /// A raw line server: prints `got LINE` for every line; answers `/who` as Switchboard
  /// does, and `msg:reject…` with an `! …` error line first.
  static let rawLineServer = """
    import os, socket, sys, threading
    srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(8)
    print("port", srv.getsockname()[1], flush=True)
    threading.Timer(60, lambda: os._exit(0)).start()
    def serve(conn):
        f = conn.makefile("rwb", buffering=0)
        for raw in f:
            line = raw.decode().rstrip("\\r\\n")
            print("got", line, flush=True)
            if line.startswith("msg:reject"):
                conn.sendall(b"! slow down: too many messages\\n")
            if line == "/who":
                conn.sendall(b"* in lobby (1): ada\\n")
    while True:
        c, _ = srv.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()
    """

  static var canRunPeers: Bool { PythonPeer.hasPython && TestPKI.hasOpenSSL && TLSSupport.isAvailable }

  /// Runs `switchboard ARGS…` to its end; its exit code and stderr.
  func run(_ arguments: [String]) async throws -> (code: Int32, stderr: String) {
    let child = try ChildProcess(Executables.switchboard!, arguments)
    defer { child.stop() }
    let code = try await child.waitForExit(timeout: .seconds(20))
    return (code, child.stderr)
  }

  /// What ``withTLSFront(_:certificate:_:)`` hands its body.
  struct TLSFront {
    let server: ChatServer
    let pki: TestPKI
    let forwarder: ChildProcess
    /// `SCHEME://127.0.0.1:PORT/`, the forwarder's address.
    let url: String
    /// A WebSocket client on the server's plaintext port, ready, in the lobby.
    let watcher: ChatProbe
  }

  /// Runs `body` with a real server, a fresh ``TestPKI`` and a TLS forwarder presenting
  /// `certificate` (`server`: signed by the test CA; `self`: self-signed) in front of the
  /// plaintext port `scheme` (`wss` or `tls`) maps to; stops them all afterwards.
  func withTLSFront(_ scheme: String, certificate: String = "server", _ body: (TLSFront) async throws -> Void)
    async throws
  {
    let server = try startServer()
    defer { server.shutdown() }
    let pki = try TestPKI()
    defer { pki.remove() }
    let plain = scheme == "wss" ? server.httpAddress!.port : server.tcpAddress!.port
    let peer = try PythonPeer.script(
      Self.tlsForwarder, arguments: [pki.path("\(certificate).pem"), pki.path("\(certificate).key"), "\(plain)"])
    defer { peer.stop() }
    let port = try await peer.waitForLine { line -> Int? in line.hasPrefix("port ") ? Int(line.dropFirst(5)) : nil }
    let watcher = try ChatProbe(wsURL(server), name: "watcher")
    try await watcher.waitReady()
    try await body(
      TLSFront(server: server, pki: pki, forwarder: peer, url: "\(scheme)://127.0.0.1:\(port)/", watcher: watcher))
    await watcher.stop()
  }

  @Test(arguments: ["tcp", "ws", "udp"])
  func sendDeliversToAnotherClient(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let watcher = try ChatProbe(wsURL(server), name: "watcher")
    try await watcher.waitReady()
    let url =
      switch scheme {
      case "tcp": tcpURL(server)
      case "udp": udpURL(server)
      default: wsURL(server)
      }
    let text = "hello over \(scheme)"
    let result = try await run(["send", url, "hello", "over", scheme, "--name", "ada"])
    #expect(result.code == 0, "stderr: \(result.stderr)")
    #expect(try await watcher.waitForMessage(text).author == "ada")
    await watcher.stop()
  }

  @Test(.enabled(ifAvailable: canRunPeers, "needs python3 and openssl"), arguments: ["wss", "tls"])
  func sendOverTLSTrustingTheTestCA(scheme: String) async throws {
    try await withTLSFront(scheme) { front in
      let result = try await run(["send", front.url, "secret", "over", scheme, "--name", "ada", "--ca-file", front.pki.caFile])
      #expect(result.code == 0, "stderr: \(result.stderr)")
      #expect(try await front.watcher.waitForMessage("secret over \(scheme)").author == "ada")
      #expect(!result.stderr.contains("WARNING"))
    }
  }

  @Test(.enabled(ifAvailable: canRunPeers, "needs python3 and openssl"), arguments: ["wss", "tls"])
  func anUntrustedCertificateFailsWithExit1(scheme: String) async throws {
    // Self-signed: neither the test CA nor the system store vouches for it.
    try await withTLSFront(scheme, certificate: "self") { front in
      let withCA = try await run(["send", front.url, "hi", "--ca-file", front.pki.caFile])
      #expect(withCA.code == 1)
      #expect(
        withCA.stderr.contains("not delivered") && withCA.stderr.contains("certificate verify failed"), "\(withCA.stderr)")
      let withSystemStore = try await run(["send", front.url, "hi"])
      #expect(withSystemStore.code == 1)
      #expect(withSystemStore.stderr.contains("certificate verify failed"), "\(withSystemStore.stderr)")
    }
  }

  @Test(.enabled(ifAvailable: canRunPeers, "needs python3 and openssl"), arguments: ["wss", "tls"])
  func insecureSkipsVerificationWithAWarning(scheme: String) async throws {
    try await withTLSFront(scheme, certificate: "self") { front in
      let result = try await run(["send", front.url, "unverified", "--name", "eve", "--insecure"])
      #expect(result.code == 0, "stderr: \(result.stderr)")
      #expect(result.stderr.contains("WARNING: --insecure"))
      #expect(try await front.watcher.waitForMessage("unverified").author == "eve")
    }
  }

  @Test(.enabled(ifAvailable: canRunPeers, "needs python3 and openssl"))
  func theTokenIsInTheWebSocketRequest() async throws {
    try await withTLSFront("wss") { front in
      let result = try await run([
        "send", front.url, "with a token", "--name", "ada", "--ca-file", front.pki.caFile, "--token", "eyJ.abc-1",
      ])
      #expect(result.code == 0, "stderr: \(result.stderr)")
      let request = try await front.forwarder.waitForLine { line -> String? in line.hasPrefix("first ") ? String(line) : nil }
      #expect(
        request.hasPrefix("first GET /?") && request.contains("token=eyJ.abc-1") && request.contains("name=ada"),
        "\(request)")
      _ = try await front.watcher.waitForMessage("with a token")
    }
  }

  @Test(.enabled(ifAvailable: PythonPeer.hasPython, "needs python3"))
  func theTokenIsTheFirstLineOnTCP() async throws {
    let peer = try PythonPeer.script(Self.rawLineServer)
    defer { peer.stop() }
    let port = try await peer.waitForLine { line -> Int? in line.hasPrefix("port ") ? Int(line.dropFirst(5)) : nil }
    let result = try await run(["send", "tcp://127.0.0.1:\(port)", "hi", "--name", "ada", "--token", "tok-42"])
    #expect(result.code == 0, "stderr: \(result.stderr)")
    try await peer.waitForOutput("got msg:hi\ngot /who\n")
    let got = peer.stdout.split(separator: "\n").filter { $0.hasPrefix("got ") }
    #expect(Array(got.prefix(3)) == ["got auth:tok-42", "got iam:ada", "got msg:hi"])
  }

  @Test(.enabled(ifAvailable: PythonPeer.hasPython, "needs python3"))
  func anErrorLineBeforeTheConfirmationIsNotDelivered() async throws {
    let peer = try PythonPeer.script(Self.rawLineServer)
    defer { peer.stop() }
    let port = try await peer.waitForLine { line -> Int? in line.hasPrefix("port ") ? Int(line.dropFirst(5)) : nil }
    let result = try await run(["send", "tcp://127.0.0.1:\(port)", "reject", "me"])
    #expect(result.code == 1)
    #expect(result.stderr.contains("not delivered") && result.stderr.contains("slow down"), "\(result.stderr)")
    #expect(!peer.stdout.contains("got iam:"))  // no --name: the server names the sender
  }

  @Test(arguments: ["tcp", "udp", "ws"])
  func withoutANameTheServerNamesTheSender(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let watcher = try ChatProbe(wsURL(server), name: "watcher")
    try await watcher.waitReady()
    let url = scheme == "tcp" ? tcpURL(server) : scheme == "udp" ? udpURL(server) : wsURL(server)
    let result = try await run(["send", url, "nameless", scheme])
    #expect(result.code == 0, "stderr: \(result.stderr)")
    #expect(try await !watcher.waitForMessage("nameless \(scheme)").author.isEmpty)
    await watcher.stop()
  }

  @Test(arguments: ["tcp", "udp", "ws"])
  func roomPicksTheRoom(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let watcher = try ChatProbe(wsURL(server), name: "watcher", room: "ops")
    try await watcher.waitReady()
    let url = scheme == "tcp" ? tcpURL(server) : scheme == "udp" ? udpURL(server) : wsURL(server)
    let result = try await run(["send", url, "to ops over \(scheme)", "--name", "ci", "--room", "ops"])
    #expect(result.code == 0, "stderr: \(result.stderr)")
    let message = try await watcher.waitForMessage("to ops over \(scheme)")
    #expect(message.author == "ci" && message.room == "ops")
    await watcher.stop()
  }

  @Test func aRefusedConnectionIsExit1() async throws {
    let nobody = try RefusingPort()
    let result = try await run(["send", "tcp://127.0.0.1:\(nobody.port)", "nobody", "home"])
    #expect(result.code == 1)
    #expect(result.stderr.contains("not delivered"), "\(result.stderr)")
  }

  @Test(arguments: [
    ["send", "udp://127.0.0.1:9", "x", "--ca-file", "/dev/null"],
    ["send", "udp://127.0.0.1:9", "x", "--token", "t"],
    ["send", "ws://127.0.0.1:9/", "x", "--insecure"],
    ["send", "tcp://127.0.0.1:9", "x", "--ca-file", "/dev/null"],
    ["send", "tls://127.0.0.1:9", "x", "--ca-file", "/dev/null", "--insecure"],
    ["send", "tls://127.0.0.1:9", "x", "--ca-file", "/nonexistent/ca.pem"],
    ["send", "ws://127.0.0.1:9/", "x", "--token", "two words"],
    ["chat", "udp://127.0.0.1:9", "--pipe", "--insecure"],
  ])
  func flagsThatDoNotApplyAreUsageErrors(arguments: [String]) async throws {
    let result = try await run(arguments)
    #expect(result.code == 64, "stderr: \(result.stderr)")
    #expect(result.stderr.contains("switchboard \(arguments[0]): "))
  }

  @Test(.enabled(ifAvailable: canRunPeers, "needs python3 and openssl"))
  func chatPipeOverWSSTrustingTheTestCA() async throws {
    try await withTLSFront("wss") { front in
      let chat = try ChildProcess(
        Executables.switchboard!, ["chat", front.url, "--name", "piper", "--pipe", "--ca-file", front.pki.caFile])
      defer { chat.stop() }
      chat.write("over wss\n")
      #expect(try await front.watcher.waitForMessage("over wss").author == "piper")
      try await front.watcher.client.send("back to the pipe")
      try await chat.waitForOutput("watcher: back to the pipe\n")
      chat.closeInput()
      #expect(try await chat.waitForExit() == 0)
    }
  }
}
