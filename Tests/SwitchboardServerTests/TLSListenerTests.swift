import Foundation
import SwitchboardIO
import SwitchboardTLS
import SwitchboardTestSupport
import Testing

private let tlsListenerPeers = Executables.switchboard != nil && TestPKI.hasOpenSSL && Executables.tool("python3") != nil

/// The real binary's TLS listeners (`--tls-cert`/`--tls-key`) against peers nobody here
/// wrote: `openssl s_client` on the `tls://` line port, python's `ssl` module reading the
/// certificate a handshake got, `curl` on HTTPS. Certificates come from ``TestPKI``; each
/// peer trusts the test CA only, so every handshake is verified for real.
@Suite(
  .onTestThreads, .enabled(ifAvailable: tlsListenerPeers, "needs the switchboard binary, openssl and python3"),
  .enabled(ifAvailable: TLSSupport.isAvailable, "needs TLS (TLSSupport)"))
struct TLSListenerTests {
  let binary = Executables.switchboard ?? ""

  struct Server {
    let process: ServeProcess
    var tcp: Int { process.tcp }
    var https: Int { process.https }
    var tls: Int { process.tls }
  }

  /// Starts `serve` with plaintext TCP, HTTPS and TLS line ports (UDP and HTTP off).
  func startServer(_ pki: TestPKI, certificates: [(String, String)]? = nil, _ extra: [String] = [])
    async throws -> Server
  {
    let pairs = certificates ?? [(pki.serverCertificate, pki.serverKey)]
    let tlsFlags = pairs.flatMap { ["--tls-cert", $0.0, "--tls-key", $0.1] }
    let process = try await ServeProcess.start(["--ephemeral"] + tlsFlags + extra, listeners: [.tcp, .https, .tls])
    return Server(process: process)
  }

  /// `openssl s_client` on the line port, verifying against the test CA for `localhost`.
  private func sClient(_ pki: TestPKI, port: Int) throws -> ChildProcess {
    try ChildProcess(
      Executables.tool("openssl")!,
      [
        "s_client", "-quiet", "-connect", "127.0.0.1:\(port)", "-servername", "localhost", "-CAfile", pki.caFile,
        "-verify_return_error", "-verify_hostname", "localhost",
      ])
  }

  /// What python's `ssl` sees of the server's certificate after a verified handshake
  /// asking for `name` by SNI: `serial=HEX subject=CN`.
  private func peerCertificate(port: Int, name: String, caFile: String) async throws -> String {
    let script = """
      import socket, ssl, sys
      ctx = ssl.create_default_context(cafile=sys.argv[1])
      with socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=10) as raw:
          with ctx.wrap_socket(raw, server_hostname=sys.argv[3]) as tls:
              cert = tls.getpeercert()
              cn = [v for rdn in cert["subject"] for (k, v) in rdn if k == "commonName"][0]
              print("serial=%s subject=%s version=%s" % (cert["serialNumber"], cn, tls.version()), flush=True)
      """
    let peer = try ChildProcess(Executables.tool("python3")!, ["-c", script, caFile, "\(port)", name])
    let status = try await peer.waitForExit()
    guard status == 0 else { throw TestFailure("python ssl failed: \(peer.stdout) \(peer.stderr.suffix(600))") }
    return peer.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// A certificate for `name`, signed by the test CA with `serial`, written as
  /// `file.pem`/`file.key` in the PKI directory.
  private func issue(_ pki: TestPKI, name: String, serial: Int, file: String) throws {
    try runTool(
      [
        "openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
        "\(file).key", "-out", "\(file).csr", "-subj", "/CN=\(name)",
      ], in: pki.directory)
    try "subjectAltName=DNS:\(name),IP:127.0.0.1\nextendedKeyUsage=serverAuth\n".write(
      toFile: pki.path("\(file).ext"), atomically: true, encoding: .utf8)
    try runTool(
      [
        "openssl", "x509", "-req", "-in", "\(file).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial",
        "\(serial)", "-days", "1", "-extfile", "\(file).ext", "-out", "\(file).pem",
      ], in: pki.directory)
  }

  /// What benchmarks/run.sh's switchboard-wss rows rely on: `switchboard bench` over
  /// `wss://` delivers every message through the TLS listener, and its idle hold reports
  /// the server's memory and descriptors per connection.
  @Test func benchDrivesTheWSSListener() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try await startServer(pki)
    defer { server.process.signal(SIGTERM) }
    let url = "wss://127.0.0.1:\(server.https)/rooms/bench"
    func report(_ arguments: [String]) async throws -> [String: Any] {
      let bench = try ChildProcess(
        binary, ["bench", url] + arguments + ["--json", "--quiet", "--server-pid", "\(server.process.pid)"])
      #expect(try await bench.waitForExit(timeout: .seconds(30)) == 0, "\(bench.stderr)")
      let line = try #require(bench.stdout.split(separator: "\n").last.map(String.init))
      return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }
    let sending = try await report(
      ["--connections", "20", "--senders", "2", "--rate", "200", "--duration", "1", "--warmup", "0.2"])
    #expect((sending["delivery_ratio"] as? NSNumber)?.doubleValue == 1.0, "\(sending)")
    #expect((sending["delivered"] as? NSNumber)?.intValue ?? 0 > 0, "\(sending)")
    let idle = try await report(["--connections", "20", "--idle", "--duration", "0.5"])
    #expect((idle["opened"] as? NSNumber)?.intValue == 20, "\(idle)")
    let descriptors = try #require((idle["server_fds_per_connection"] as? NSNumber)?.doubleValue, "\(idle)")
    #expect(descriptors >= 1, "every connection holds at least its socket: \(idle)")
  }

  @Test func opensslLineClientChatsWithAPlainTCPClient() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try await startServer(pki)
    defer { server.process.signal(SIGTERM) }
    #expect(server.process.stdout.contains("tls://127.0.0.1:\(server.tls)"))
    #expect(server.process.stdout.contains("https://127.0.0.1:\(server.https)/  wss://127.0.0.1:\(server.https)/"))
    let observer = try LineClient(SocketAddress(host: "127.0.0.1", port: server.tcp))
    try observer.join(as: "observer")
    let tls = try sClient(pki, port: server.tls)
    defer { tls.stop() }
    tls.write("iam:alice\n")
    // `openssl s_client` may take longer than the 300 ms name wait on a loaded machine: the
    // member is then announced as `Client N` and renamed.
    try observer.expectLine { $0 == "* alice has joined" || ($0.hasPrefix("* Client ") && $0.hasSuffix(" is now alice")) }
    tls.write("msg:hello over tls\n")
    try observer.expectLine("alice: hello over tls")
    try observer.sendLine("hello alice")
    try await tls.waitForOutput("observer: hello alice\n")
    // The console's gauges tell the TLS member from the plain one (the HTTPS scrape is no member).
    let metrics = try await tlsPeer("metrics", port: server.https, caFile: pki.caFile)
    #expect(metrics.contains("switchboard_connections_open{transport=\"tls\"} 1\n"), "\(metrics)")
    #expect(metrics.contains("switchboard_connections_open{transport=\"tcp\"} 1\n"), "\(metrics)")
  }

  @Test(.enabled(ifAvailable: Executables.tool("curl") != nil, "needs curl"))
  func healthzAndThePageOverHTTPSWithALPN() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try await startServer(pki)
    defer { server.process.signal(SIGTERM) }
    let curl = try ChildProcess(
      Executables.tool("curl")!,
      [
        "-sS", "--cacert", pki.caFile, "--resolve", "localhost:\(server.https):127.0.0.1",
        "-w", "\\n%{http_version} %{http_code}\\n", "https://localhost:\(server.https)/healthz",
      ])
    #expect(try await curl.waitForExit() == 0, "\(curl.stderr)")
    #expect(curl.stdout == "ok\n\n1.1 200\n")
    // ALPN: the HTTPS port agrees on http/1.1; the line port offers none.
    let alpn = try ChildProcess(
      Executables.tool("openssl")!,
      ["s_client", "-connect", "127.0.0.1:\(server.https)", "-alpn", "h2,http/1.1", "-CAfile", pki.caFile])
    alpn.closeInput()
    try await alpn.waitForOutput("ALPN protocol: http/1.1")
    #expect(try await alpn.waitForExit() == 0)
    let page = try ChildProcess(
      Executables.tool("curl")!,
      ["-sS", "--cacert", pki.caFile, "--resolve", "localhost:\(server.https):127.0.0.1", "https://localhost:\(server.https)/"])
    #expect(try await page.waitForExit() == 0)
    // The page picks the WebSocket scheme from its own location.
    #expect(page.stdout.contains(#"location.protocol === "https:" ? "wss://" : "ws://""#))
  }

  @Test func sniPicksTheCertificateForEachName() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    try issue(pki, name: "chat.example.test", serial: 0x77, file: "other")
    let server = try await startServer(
      pki, certificates: [(pki.serverCertificate, pki.serverKey), (pki.path("other.pem"), pki.path("other.key"))])
    defer { server.process.signal(SIGTERM) }
    for port in [server.tls, server.https] {
      let other = try await peerCertificate(port: port, name: "chat.example.test", caFile: pki.caFile)
      #expect(other.hasPrefix("serial=77 subject=chat.example.test"), "\(other)")
      let local = try await peerCertificate(port: port, name: "localhost", caFile: pki.caFile)
      #expect(local.hasPrefix("serial=02 subject=localhost"), "\(local)")
    }
  }

  @Test func sighupSwapsTheCertificateWhileAClientStaysConnected() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    try issue(pki, name: "localhost", serial: 0x10, file: "live")
    let server = try await startServer(pki, certificates: [(pki.path("live.pem"), pki.path("live.key"))])
    defer { server.process.signal(SIGTERM) }
    #expect(try await peerCertificate(port: server.tls, name: "localhost", caFile: pki.caFile).hasPrefix("serial=10 "))

    let observer = try LineClient(SocketAddress(host: "127.0.0.1", port: server.tcp))
    try observer.join(as: "observer")
    let alice = try sClient(pki, port: server.tls)
    defer { alice.stop() }
    alice.write("iam:alice\n")
    try observer.expectLine("* alice has joined")

    // The old certificate is replaced by a new one in the same files, then SIGHUP.
    try issue(pki, name: "localhost", serial: 0x20, file: "live")
    server.process.signal(SIGHUP)
    try await eventually(timeout: .seconds(10), "the reload logged") {
      server.process.stderr.contains("tls certificates reloaded")
    }
    #expect(server.process.stderr.contains("serial 20"))
    let fresh = try await peerCertificate(port: server.tls, name: "localhost", caFile: pki.caFile)
    #expect(fresh.hasPrefix("serial=20 "), "\(fresh)")
    let freshHTTPS = try await peerCertificate(port: server.https, name: "localhost", caFile: pki.caFile)
    #expect(freshHTTPS.hasPrefix("serial=20 "), "\(freshHTTPS)")

    // The connection made before the reload keeps chatting both ways.
    alice.write("msg:still here\n")
    try observer.expectLine("alice: still here")
    try observer.sendLine("welcome back")
    try await alice.waitForOutput("observer: welcome back\n")

    // A reload that fails (a key that is not PEM) is logged and keeps the certificate.
    try "not a key\n".write(toFile: pki.path("live.key"), atomically: true, encoding: .utf8)
    server.process.signal(SIGHUP)
    try await eventually(timeout: .seconds(10), "the failed reload logged") {
      server.process.stderr.contains("tls reload failed")
    }
    #expect(try await peerCertificate(port: server.tls, name: "localhost", caFile: pki.caFile).hasPrefix("serial=20 "))
    alice.write("msg:after the failed reload\n")
    try observer.expectLine("alice: after the failed reload")
  }

  @Test func aKeyThatDoesNotMatchIsAStartupError() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let process = try ChildProcess(
      binary,
      [
        "serve", "--host", "127.0.0.1", "--tcp-port", "any", "--udp-port", "0", "--http-port", "0",
        "--https-port", "any", "--tls-port", "any", "--no-advertise", "--ephemeral",
        "--tls-cert", pki.serverCertificate, "--tls-key", pki.selfSignedKey,
      ])
    #expect(try await process.waitForExit() == 1)
    #expect(
      process.stderr.contains(
        "the private key \(pki.selfSignedKey) does not match the certificate \(pki.serverCertificate)"),
      "\(process.stderr)")
    #expect(!process.stdout.contains("Switchboard is running"))

    let missing = try ChildProcess(
      binary,
      [
        "serve", "--host", "127.0.0.1", "--tcp-port", "any", "--udp-port", "0", "--http-port", "0",
        "--no-advertise", "--ephemeral", "--tls-cert", pki.path("nowhere.pem"), "--tls-key", pki.serverKey,
      ])
    #expect(try await missing.waitForExit() == 1)
    #expect(missing.stderr.contains("cannot load certificate chain \(pki.path("nowhere.pem"))"), "\(missing.stderr)")

    let unpaired = try ChildProcess(binary, ["serve", "--no-advertise", "--ephemeral", "--tls-cert", pki.serverCertificate])
    #expect(try await unpaired.waitForExit() == 64)
    #expect(unpaired.stderr.contains("--tls-cert and --tls-key go in pairs"))
  }

  @Test func aSilentConnectionOnATLSPortIsClosedAfterTheHandshakeTimeout() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try await startServer(pki, ["--tls-handshake-timeout", "1"])
    defer { server.process.signal(SIGTERM) }
    // A handshake record header announcing 200 bytes, and the first 6 of them.
    let halfHello: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0xc8, 0x01, 0x00, 0x00, 0xc4, 0x03, 0x03]
    for port in [server.tls, server.https] {
      for bytes in [[], halfHello] {
        let started = ContinuousClock.now
        let silent = try LineClient(SocketAddress(host: "127.0.0.1", port: port))
        // Nothing but the TCP connection, or half a ClientHello.
        if !bytes.isEmpty { try silent.send(bytes) }
        try silent.expectClosed(timeout: .seconds(10))
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(900), "closed after \(elapsed), before the timeout")
      }
    }
    try await eventually(timeout: .seconds(5), "the timeout logged") {
      server.process.stderr.contains("tls handshake timed out")
    }
    let metrics = try await tlsPeer("metrics", port: server.https, caFile: pki.caFile)
    #expect(metric("switchboard_tls_handshake_timeouts_total", in: metrics) == 4, "\(metrics)")
  }

  /// python's `ssl` against a TLS port, from `source` (a loopback address): `handshake`
  /// prints `ok` or `refused …`; `metrics` prints the body of `GET /metrics` over HTTPS.
  func tlsPeer(_ mode: String, port: Int, from source: String = "127.0.0.1", caFile: String)
    async throws -> String
  {
    let script = """
      import socket, ssl, sys
      mode, port, source, ca = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
      ctx = ssl.create_default_context(cafile=ca)
      try:
          raw = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
          tls = ctx.wrap_socket(raw, server_hostname="localhost")
      except (OSError, ssl.SSLError) as e:
          print("refused", type(e).__name__, flush=True)
          sys.exit(0)
      if mode == "metrics":
          tls.sendall(b"GET /metrics HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n")
          data = b""
          while True:
              chunk = tls.recv(65536)
              if not chunk:
                  break
              data += chunk
          print(data.decode(), flush=True)
      else:
          print("ok", flush=True)
      tls.close()
      """
    let peer = try ChildProcess(Executables.tool("python3")!, ["-c", script, mode, "\(port)", source, caFile])
    let status = try await peer.waitForExit()
    guard status == 0 else { throw TestFailure("python ssl failed: \(peer.stdout) \(peer.stderr.suffix(600))") }
    return peer.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The value of one row of `/metrics` text.
  func metric(_ name: String, in text: String) -> Int? {
    text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Int($0.split(separator: " ").last ?? "") }
  }

  @Test func thePerAddressCapHoldsOnBothTLSPorts() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try await startServer(pki, ["--max-connections-per-ip", "2", "--tls-handshake-timeout", "60"])
    defer { server.process.signal(SIGTERM) }
    // Two connections from 127.0.0.2 that have not begun a handshake hold its two slots.
    var held = try (0..<2).map { _ in
      try LineClient(
        SocketAddress(host: "127.0.0.1", port: server.tls), from: SocketAddress(host: "127.0.0.2", port: 0))
    }
    for port in [server.tls, server.https] {
      let refused = try await tlsPeer("handshake", port: port, from: "127.0.0.2", caFile: pki.caFile)
      #expect(refused.hasPrefix("refused"), "a third TLS connection from 127.0.0.2 on \(port): \(refused)")
      #expect(try await tlsPeer("handshake", port: port, from: "127.0.0.3", caFile: pki.caFile) == "ok")
    }
    // A slot freed is a slot for the next handshake.
    held.removeLast()
    var again = ""
    let until = ContinuousClock.now + .seconds(10)
    repeat {
      again = try await tlsPeer("handshake", port: server.https, from: "127.0.0.2", caFile: pki.caFile)
      if again == "ok" { break }
      try await Task.sleep(for: .milliseconds(100))
    } while ContinuousClock.now < until
    #expect(again == "ok", "127.0.0.2 after one of its connections closed: \(again)")
    let metrics = try await tlsPeer("metrics", port: server.https, from: "127.0.0.4", caFile: pki.caFile)
    #expect(metric("switchboard_connections_refused_per_ip_total", in: metrics) ?? 0 >= 2, "\(metrics)")
    #expect(metric("switchboard_tls_handshakes_total", in: metrics) ?? 0 >= 4, "\(metrics)")
    // One held connection is still handshaking, and the metrics request itself is open.
    #expect(metric("switchboard_tls_connections_open", in: metrics) ?? 0 >= 2, "\(metrics)")
    _ = held
  }

  @Test func anHTTPSClientThatDribblesItsRequestGets408() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try await startServer(pki, ["--http-request-timeout", "1"])
    defer { server.process.signal(SIGTERM) }
    let started = ContinuousClock.now
    let slow = try sClient(pki, port: server.https)
    defer { slow.stop() }
    slow.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\n")
    try await slow.waitForOutput("HTTP/1.1 408")
    let elapsed = ContinuousClock.now - started
    #expect(elapsed >= .milliseconds(900), "answered after \(elapsed)")
    let metrics = try await tlsPeer("metrics", port: server.https, caFile: pki.caFile)
    #expect(metric("switchboard_http_request_timeouts_total", in: metrics) == 1, "\(metrics)")
  }
}
