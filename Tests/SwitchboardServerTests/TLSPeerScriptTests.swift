import Foundation
import SwitchboardTLS
import SwitchboardTestSupport
import Testing

/// The TLS listeners driven by the scripts in Tests/peers: python `websockets` over
/// `wss://` trusting the test CA, and headless Chromium loading the page from `https://`
/// and chatting over `wss://`, each bridged to a plain TCP line client.
@Suite(
  .onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil && TestPKI.hasOpenSSL, "needs the binary and openssl"),
  .enabled(ifAvailable: TLSSupport.isAvailable, "needs TLS (TLSSupport)"))
struct TLSPeerScriptTests {
  private func withTLSServer(
    _ extra: [String] = [], _ body: (_ pki: TestPKI, _ tcp: Int, _ https: Int, _ tls: Int) async throws -> Void
  ) async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try await ServeProcess.start(["--ephemeral", "--tls-cert", pki.serverCertificate, "--tls-key", pki.serverKey] + extra, listeners: [.tcp, .https, .tls])
    defer { server.signal(SIGTERM) }
    try await body(pki, server.tcp, server.https, server.tls)
  }

  private func run(_ args: [String], timeout: Duration) async throws {
    let peer = try ChildProcess(PeerScriptTests.python!, args)
    let status = try await peer.waitForExit(timeout: timeout)
    #expect(status == 0, "\(args.first ?? "") failed: \(peer.stdout.suffix(800)) \(peer.stderr.suffix(800))")
  }

  @Test(.enabled(ifAvailable: PeerScriptTests.python != nil, "needs python3 with websockets"))
  func pythonWebsocketsChatsOverWSS() async throws {
    try await withTLSServer { pki, tcp, https, _ in
      try await run(
        ["\(PeerScriptTests.peersDirectory)/wss_chat.py", "\(https)", "\(tcp)", "--ca", pki.caFile],
        timeout: .seconds(90))
    }
  }

  @Test(
    .enabled(
      if: PeerScriptTests.python != nil && PeerScriptTests.chromium != nil, "needs chromium and python3 with websockets"))
  func chromiumUsesTheWebPageOverHTTPS() async throws {
    try await withTLSServer { pki, tcp, https, tls in
      let pin = try pki.publicKeyPin(ofCertificate: "server.pem")
      try await run(
        [
          "\(PeerScriptTests.peersDirectory)/browser_https_chat.py", "\(https)", "\(tcp)", "\(tls)", "--spki",
          Data(pin).base64EncodedString(), "--timeout", "150",
        ], timeout: .seconds(210))
    }
  }

  @Test(
    .enabled(
      if: PeerScriptTests.python != nil && PeerScriptTests.chromium != nil, "needs chromium and python3 with websockets"))
  func chromiumChatsWithATokenInThePageURLAndShowsTheRefusalWithout() async throws {
    let secretFile = NSTemporaryDirectory() + "sb-browser-auth-\(getpid()).secret"
    try Data(TestTokens.secret).write(to: URL(fileURLWithPath: secretFile))
    defer { try? FileManager.default.removeItem(atPath: secretFile) }
    try await withTLSServer(["--auth-secret-file", secretFile]) { pki, tcp, https, _ in
      let pin = try pki.publicKeyPin(ofCertificate: "server.pem")
      try await run(
        [
          "\(PeerScriptTests.peersDirectory)/browser_auth_chat.py", "\(https)", "\(tcp)", "--spki",
          Data(pin).base64EncodedString(), "--token", TestTokens.token(sub: "webuser", rooms: ["*"]),
          "--line-token", TestTokens.token(sub: "ncuser", rooms: ["*"]), "--timeout", "150",
        ], timeout: .seconds(210))
    }
  }
}
