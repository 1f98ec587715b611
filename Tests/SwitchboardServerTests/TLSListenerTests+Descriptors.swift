import Foundation
import SwitchboardIO
import SwitchboardTestSupport
import Testing

/// TLS runs in the connection's own loop: a `wss://` connection holds the one descriptor
/// a `ws://` connection holds, and clients that break the protocol (stall mid-handshake,
/// send garbage, drop TCP without `close_notify`, cut a record in half) are closed and
/// give their descriptor back without taking the server down.
extension TLSListenerTests {
  /// python's `ssl` as `count` WebSocket clients on `port` (`wss://…/echo`): each one
  /// handshakes, upgrades and prints `open N` once all are open, then holds them until
  /// its standard input closes. `abrupt`: each then ends without `close_notify` (a FIN on
  /// the TCP socket under the TLS session, half of them after half a record).
  /// `path`: another endpoint; one the server refuses (`/nowhere`: 404) makes each client
  /// print `refused` and go on with the next.
  private func wssClients(_ count: Int, port: Int, caFile: String, abrupt: Bool = false, path: String = "/echo")
    throws -> ChildProcess
  {
    let script = """
      import os, socket, ssl, sys
      count, port, ca, abrupt, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4] == "1", sys.argv[5]
      ctx = ssl.create_default_context(cafile=ca)
      held = []
      for i in range(count):
          raw = socket.create_connection(("127.0.0.1", port), timeout=10)
          under = os.dup(raw.fileno())
          tls = ctx.wrap_socket(raw, server_hostname="localhost")
          tls.sendall(b"GET " + path.encode() + b" HTTP/1.1\\r\\nHost: localhost\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n"
                      b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n")
          head = b""
          while b"\\r\\n\\r\\n" not in head:
              chunk = tls.recv(4096)
              if not chunk:
                  sys.exit("closed during the upgrade")
              head += chunk
          if not head.startswith(b"HTTP/1.1 101"):
              if path == "/echo":
                  sys.exit("not upgraded: %r" % head[:60])
              print("refused", head.split(b"\\r\\n")[0].decode(), flush=True)
              tls.close()
              continue
          held.append((tls, under))
      print("open", len(held), flush=True)
      sys.stdin.read()
      for i, (tls, under) in enumerate(held):
          if abrupt:
              if i % 2:
                  os.write(under, b"\\x17\\x03\\x03\\x00\\x40" + b"x" * 10)
              socket.socket(fileno=under).shutdown(socket.SHUT_RDWR)
          else:
              os.close(under)
              tls.unwrap()
          tls.close()
      print("closed", flush=True)
      """
    return try ChildProcess(
      Executables.tool("python3")!, ["-c", script, "\(count)", "\(port)", caFile, abrupt ? "1" : "0", path])
  }

  /// Waits until the server counts `expected` TLS connections open (the `/metrics`
  /// request asking is one of them).
  private func waitForOpenTLS(_ expected: Int, _ server: Server, caFile: String) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    var open: Int? = nil
    repeat {
      open = metric("switchboard_tls_connections_open", in: try await tlsPeer("metrics", port: server.https, caFile: caFile))
      if open == expected { return }
      try await Task.sleep(for: .milliseconds(50))
    } while ContinuousClock.now < deadline
    throw TestFailure("\(open.map(String.init) ?? "no") TLS connections open, expected \(expected)")
  }

  /// Waits for the server's descriptor count to settle at `expected`.
  private func expectDescriptors(_ server: Server, _ expected: Int, _ what: String) async throws {
    var seen = -1
    do {
      try await eventually(timeout: .seconds(10), what) {
        seen = try ProcFS.openDescriptors(server.process.pid)
        return seen == expected
      }
    } catch {
      Issue.record("\(what): the server holds \(seen) descriptors, expected \(expected)")
    }
  }

  @Test(.enabled(ifAvailable: ProcFS.available, ProcFS.needed))
  func eachWSSConnectionHoldsOneDescriptor() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try await startServer(pki)
    defer { server.process.signal(SIGTERM) }
    // One connection first, so what a loop sets up on its first connection is not counted.
    let warmUp = try wssClients(1, port: server.https, caFile: pki.caFile)
    try await warmUp.waitForOutput("open 1")
    warmUp.closeInput()
    try await warmUp.waitForOutput("closed")
    _ = try await warmUp.waitForExit()
    try await waitForOpenTLS(1, server, caFile: pki.caFile)
    let baseline = try ProcFS.openDescriptors(server.process.pid)

    let count = 12
    let clients = try wssClients(count, port: server.https, caFile: pki.caFile)
    try await clients.waitForOutput("open \(count)")
    let open = try ProcFS.openDescriptors(server.process.pid)
    #expect(open - baseline == count, "\(count) wss connections hold \(open - baseline) descriptors")
    clients.closeInput()
    try await clients.waitForOutput("closed")
    try await expectDescriptors(server, baseline, "every wss connection's descriptor given back")
  }

  @Test(.enabled(ifAvailable: ProcFS.available, ProcFS.needed))
  func brokenTLSClientsAreClosedAndLeakNoDescriptor() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try await startServer(pki, ["--tls-handshake-timeout", "1"])
    defer { server.process.signal(SIGTERM) }
    let warmUp = try wssClients(1, port: server.https, caFile: pki.caFile)
    try await warmUp.waitForOutput("open 1")
    warmUp.closeInput()
    _ = try await warmUp.waitForExit()
    try await waitForOpenTLS(1, server, caFile: pki.caFile)
    let baseline = try ProcFS.openDescriptors(server.process.pid)

    // A handshake record header announcing 200 bytes, and the first 6 of them.
    let halfHello: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0xc8, 0x01, 0x00, 0x00, 0xc4, 0x03, 0x03]
    let garbage = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
    let plaintext = Array("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
    for port in [server.https, server.tls] {
      var stalled: [LineClient] = []
      for bytes in [halfHello, garbage, plaintext, []] {
        let client = try LineClient(SocketAddress(host: "127.0.0.1", port: port))
        if !bytes.isEmpty { try client.send(bytes) }
        stalled.append(client)
      }
      // Every one is closed: garbage at once, a stalled or silent one at the timeout.
      for client in stalled { try client.expectClosed(timeout: .seconds(10)) }
    }
    // Handshaken and upgraded, then gone without close_notify (half after half a record).
    let abrupt = try wssClients(6, port: server.https, caFile: pki.caFile, abrupt: true)
    try await abrupt.waitForOutput("open 6")
    abrupt.closeInput()
    try await abrupt.waitForOutput("closed")
    // Upgrades the server refuses: answered, closed, and counted out like the rest.
    let refused = try wssClients(3, port: server.https, caFile: pki.caFile, path: "/nowhere")
    try await refused.waitForOutput("open 0")
    refused.closeInput()
    #expect(try await refused.waitForExit() == 0, "\(refused.stderr)")
    #expect(refused.stdout.components(separatedBy: "refused HTTP/1.1 404").count == 4, "\(refused.stdout)")

    #expect(server.process.isRunning, "the server stopped: \(server.process.stderr.suffix(800))")
    try await expectDescriptors(server, baseline, "every broken client's descriptor given back")
    let metrics = try await tlsPeer("metrics", port: server.https, caFile: pki.caFile)
    #expect(metric("switchboard_tls_connections_open", in: metrics) == 1, "\(metrics)")
    #expect(metric("switchboard_tls_handshakes_failed_total", in: metrics) ?? 0 >= 4, "\(metrics)")
    #expect(metric("switchboard_tls_handshake_timeouts_total", in: metrics) ?? 0 >= 2, "\(metrics)")
  }
}
