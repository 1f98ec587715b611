import Foundation
import SwitchboardClient
import SwitchboardTLS
import SwitchboardTestSupport
import Testing

/// `tls://`: the line dialect over TLS, against a python `ssl` line server (a peer
/// nobody here wrote) that trusts nothing of ours but the test CA's certificate. Over the
/// platform's transport: OpenSSL on Linux, Network.framework (its verify hook, the CA as
/// the only anchor) on Apple platforms.
@Suite(
  .onTestThreads, .enabled(ifAvailable: PythonPeer.hasPython && TestPKI.hasOpenSSL, "needs python3 and openssl"),
  .enabled(ifAvailable: defaultTransportDoesTLS, "needs TLS (TLSSupport, or Network.framework)"))
struct ChatClientTLSTests {
  /// Reads lines; answers `msg:TEXT` with `peer: TEXT` and reports each line on stdout.
  static let lineServer = """
    import socket, ssl, sys, threading
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[1], sys.argv[2])
    srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(8)
    print("port", srv.getsockname()[1], flush=True)
    threading.Timer(60, lambda: __import__("os")._exit(0)).start()
    def serve(conn):
        try:
            tls = ctx.wrap_socket(conn, server_side=True)
            f = tls.makefile("rwb", buffering=0)
            for raw in f:
                line = raw.decode().rstrip("\\r\\n")
                print("got", line, flush=True)
                if line.startswith("msg:"):
                    tls.sendall(("peer: " + line[4:] + "\\n").encode())
        except Exception as e:
            print("error", e, flush=True)
    while True:
        c, _ = srv.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()
    """

  @Test func lineChatOverTLSTrustingTheTestCA() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let peer = try PythonPeer.script(Self.lineServer, arguments: [pki.path("server.pem"), pki.path("server.key")])
    defer { peer.stop() }
    let port = try await peer.waitForLine { line -> Int? in line.hasPrefix("port ") ? Int(line.dropFirst(5)) : nil }
    var config = ChatClient.Configuration.forTesting
    config.tls = TLSConfiguration(trustRoots: .caFile(pki.caFile), serverName: "localhost")
    let probe = try ChatProbe("tls://127.0.0.1:\(port)", name: "alice", configuration: config)
    try await probe.waitConnected()
    try await peer.waitForOutput("got iam:alice")
    _ = try await probe.client.send("hello over tls")
    try await peer.waitForOutput("got msg:hello over tls")
    try await probe.waitFor("the peer's line") {
      if case .message(let m) = $0 { m.author == "peer" && m.text == "hello over tls" && !m.isMine } else { false }
    }
    await probe.stop()
  }

  @Test func anUntrustedServerIsAnError() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let peer = try PythonPeer.script(Self.lineServer, arguments: [pki.path("self.pem"), pki.path("self.key")])
    defer { peer.stop() }
    let port = try await peer.waitForLine { line -> Int? in line.hasPrefix("port ") ? Int(line.dropFirst(5)) : nil }
    var config = ChatClient.Configuration.forTesting
    config.tls = TLSConfiguration(trustRoots: .caFile(pki.caFile), serverName: "localhost")
    config.reconnect = .never
    let probe = try ChatProbe("tls://127.0.0.1:\(port)", name: "alice", configuration: config)
    try await probe.waitFor("a TLS error") { if case .error = $0 { true } else { false } }
    #expect(probe.connectedCount == 0)
    await probe.stop()
  }
}
