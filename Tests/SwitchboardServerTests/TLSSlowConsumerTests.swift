import Foundation
import SwitchboardIO
import SwitchboardServer
import SwitchboardTLS
import SwitchboardTestSupport
import Testing

private let tlsPeers = TestPKI.hasOpenSSL && Executables.tool("python3") != nil

/// The slow-consumer contract over TLS (docs/BAD-INPUT.md, "Slow consumers"): the session
/// runs on the TLS connection itself, so a member that stops reading is judged by the same
/// bound on its (encrypted) output, counted, logged and taken out of its room, then reset.
@Suite(
  .onTestThreads, .enabled(ifAvailable: tlsPeers, "needs openssl and python3"),
  .enabled(ifAvailable: TLSSupport.isAvailable, "needs TLS (TLSSupport)"))
struct TLSSlowConsumerTests {
  /// python's `ssl` as a `tls://` line member with a 4 KiB receive buffer: it names
  /// itself, prints `ready`, reads nothing until its standard input closes, then reads
  /// until the connection ends and prints how (`ended eof` after `close_notify`, else
  /// `ended` and the error).
  private func stuckMember(port: Int, caFile: String) throws -> ChildProcess {
    let script = """
      import socket, ssl, sys
      port, ca = int(sys.argv[1]), sys.argv[2]
      ctx = ssl.create_default_context(cafile=ca)
      raw = socket.socket()
      raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
      raw.settimeout(30)
      raw.connect(("127.0.0.1", port))
      # A clean close (close_notify) reads as b"", an abrupt one raises.
      tls = ctx.wrap_socket(raw, server_hostname="localhost", suppress_ragged_eofs=False)
      tls.sendall(b"iam:stuck\\n")
      print("ready", flush=True)
      sys.stdin.read()
      try:
          while tls.recv(65536):
              pass
          print("ended eof", flush=True)
      except Exception as e:
          print("ended", type(e).__name__, flush=True)
      """
    return try ChildProcess(Executables.tool("python3")!, ["-c", script, "\(port)", caFile])
  }

  @Test func aTLSLineMemberThatNeverReadsIsCountedLeavesAndIsReset() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    try await withServer({
      $0.tlsCertificates = [ServerCertificate(certificateFile: pki.serverCertificate, keyFile: pki.serverKey)]
      $0.maxBufferedPerConnection = 256 * 1024
      // Lines end at their newline only (see LineChatTests' slow-consumer test).
      $0.linePause = .seconds(30)
    }) { server in
      let stuck = try stuckMember(port: try #require(server.tlsAddress).port, caFile: pki.caFile)
      try await stuck.waitForOutput("ready")
      let writer = try LineClient(server.tcpAddress!)
      try writer.sendLine("iam:writer")
      try await eventually("both in the room") {
        Set(server.hub.who(room: "lobby")) == ["stuck", "writer"]
      }
      let payload = String(repeating: "x", count: 2000)
      // Far past the kernel's socket buffers and the 256 KiB bound, unless the verdict
      // comes first.
      for i in 0..<8000 where server.metrics.slowConsumers.load(ordering: .relaxed) == 0 {
        try writer.sendLine("\(i) \(payload)")
      }
      try await eventually("the TLS member dropped as a slow consumer") {
        server.metrics.slowLineConsumers.load(ordering: .relaxed) == 1
      }
      try await eventually("out of the room") { server.hub.who(room: "lobby") == ["writer"] }
      #expect(server.metrics.slowConsumers.load(ordering: .relaxed) == 1)
      stuck.closeInput()
      try await stuck.waitForOutput("ended")
      #expect(!stuck.stdout.contains("ended eof"), "the stuck member's connection ended cleanly: \(stuck.stdout)")
    }
  }
}
