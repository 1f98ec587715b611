import Foundation
import SwitchboardClient
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// `switchboard send` (and `chat --pipe`) over every scheme: the real binary against a real
/// in-process server, a second client that must receive the message, and for `wss://` and
/// `tls://` a python `ssl` forwarder (a TLS peer nobody here wrote) in front of the server's
/// plaintext ports, with certificates from ``TestPKI``.
@Suite(.onTestThreads, .enabled(if: ChatBinary.path != nil, "switchboard binary not built"))
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

  static var canRunPeers: Bool { PythonPeer.hasPython && TestPKI.hasOpenSSL }

  /// Runs `switchboard ARGS…` to its end; its exit code and stderr.
  func run(_ arguments: [String]) async throws -> (code: Int32, stderr: String) {
    let child = try ChildProcess(ChatBinary.path!, arguments)
    defer { child.stop() }
    let code = try await child.waitForExit(timeout: .seconds(20))
    return (code, child.stderr)
  }

  /// A TLS forwarder to `port` with `certificate`/`key` from `pki`, and its port.
  func forwarder(_ pki: TestPKI, certificate: String, key: String, to port: Int) async throws -> (ChildProcess, Int) {
    let peer = try PythonPeer.script(Self.tlsForwarder, arguments: [pki.path(certificate), pki.path(key), "\(port)"])
    let listening = try await peer.waitForLine { line -> Int? in line.hasPrefix("port ") ? Int(line.dropFirst(5)) : nil }
    return (peer, listening)
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

  @Test(.enabled(if: canRunPeers, "needs python3 and openssl"), arguments: ["wss", "tls"])
  func sendOverTLSTrustingTheTestCA(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let pki = try TestPKI()
    defer { pki.remove() }
    let plain = scheme == "wss" ? server.httpAddress!.port : server.tcpAddress!.port
    let (peer, port) = try await forwarder(pki, certificate: "server.pem", key: "server.key", to: plain)
    defer { peer.stop() }
    let watcher = try ChatProbe(wsURL(server), name: "watcher")
    try await watcher.waitReady()
    let result = try await run([
      "send", "\(scheme)://127.0.0.1:\(port)/", "secret", "over", scheme, "--name", "ada", "--ca-file", pki.caFile,
    ])
    #expect(result.code == 0, "stderr: \(result.stderr)")
    #expect(try await watcher.waitForMessage("secret over \(scheme)").author == "ada")
    #expect(!result.stderr.contains("WARNING"))
    await watcher.stop()
  }

  @Test(.enabled(if: canRunPeers, "needs python3 and openssl"), arguments: ["wss", "tls"])
  func anUntrustedCertificateFailsWithExit1(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let pki = try TestPKI()
    defer { pki.remove() }
    let plain = scheme == "wss" ? server.httpAddress!.port : server.tcpAddress!.port
    // Self-signed: neither the test CA nor the system store vouches for it.
    let (peer, port) = try await forwarder(pki, certificate: "self.pem", key: "self.key", to: plain)
    defer { peer.stop() }
    let url = "\(scheme)://127.0.0.1:\(port)/"
    let withCA = try await run(["send", url, "hi", "--ca-file", pki.caFile])
    #expect(withCA.code == 1)
    #expect(withCA.stderr.contains("not delivered") && withCA.stderr.contains("certificate verify failed"), "\(withCA.stderr)")
    let withSystemStore = try await run(["send", url, "hi"])
    #expect(withSystemStore.code == 1)
    #expect(withSystemStore.stderr.contains("certificate verify failed"), "\(withSystemStore.stderr)")
  }

  @Test(.enabled(if: canRunPeers, "needs python3 and openssl"), arguments: ["wss", "tls"])
  func insecureSkipsVerificationWithAWarning(scheme: String) async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let pki = try TestPKI()
    defer { pki.remove() }
    let plain = scheme == "wss" ? server.httpAddress!.port : server.tcpAddress!.port
    let (peer, port) = try await forwarder(pki, certificate: "self.pem", key: "self.key", to: plain)
    defer { peer.stop() }
    let watcher = try ChatProbe(wsURL(server), name: "watcher")
    try await watcher.waitReady()
    let result = try await run(["send", "\(scheme)://127.0.0.1:\(port)/", "unverified", "--name", "eve", "--insecure"])
    #expect(result.code == 0, "stderr: \(result.stderr)")
    #expect(result.stderr.contains("WARNING: --insecure"))
    #expect(try await watcher.waitForMessage("unverified").author == "eve")
    await watcher.stop()
  }

  @Test(.enabled(if: canRunPeers, "needs python3 and openssl"))
  func theTokenIsInTheWebSocketRequest() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let pki = try TestPKI()
    defer { pki.remove() }
    let (peer, port) = try await forwarder(pki, certificate: "server.pem", key: "server.key", to: server.httpAddress!.port)
    defer { peer.stop() }
    let result = try await run([
      "send", "wss://127.0.0.1:\(port)/", "with a token", "--name", "ada", "--ca-file", pki.caFile, "--token", "eyJ.abc-1",
    ])
    #expect(result.code == 0, "stderr: \(result.stderr)")
    let request = try await peer.waitForLine { line -> String? in line.hasPrefix("first ") ? String(line) : nil }
    #expect(request.hasPrefix("first GET /?") && request.contains("token=eyJ.abc-1") && request.contains("name=ada"), "\(request)")
  }

  @Test(.enabled(if: PythonPeer.hasPython, "needs python3"))
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

  @Test(.enabled(if: PythonPeer.hasPython, "needs python3"))
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

  @Test func aRefusedConnectionIsExit1() async throws {
    let port = try freePorts(1)[0]
    let result = try await run(["send", "tcp://127.0.0.1:\(port)", "nobody", "home"])
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

  @Test(.enabled(if: canRunPeers, "needs python3 and openssl"))
  func chatPipeOverWSSTrustingTheTestCA() async throws {
    let server = try startServer()
    defer { server.shutdown() }
    let pki = try TestPKI()
    defer { pki.remove() }
    let (peer, port) = try await forwarder(pki, certificate: "server.pem", key: "server.key", to: server.httpAddress!.port)
    defer { peer.stop() }
    let watcher = try ChatProbe(wsURL(server), name: "watcher")
    try await watcher.waitReady()
    let chat = try ChildProcess(
      ChatBinary.path!, ["chat", "wss://127.0.0.1:\(port)/", "--name", "piper", "--pipe", "--ca-file", pki.caFile])
    defer { chat.stop() }
    chat.write("over wss\n")
    #expect(try await watcher.waitForMessage("over wss").author == "piper")
    try await watcher.client.send("back to the pipe")
    try await chat.waitForOutput("watcher: back to the pipe\n")
    chat.closeInput()
    #expect(try await chat.waitForExit() == 0)
    await watcher.stop()
  }
}
