import Foundation
import SwitchboardIO
import SwitchboardTLS
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Every listener of `serve` has its port to itself: a second server asked for a port the
/// first holds (its other listeners off) exits 1 with the listener's refusal, and the first
/// keeps serving on it. UDP included: a UDP socket that shared its port would take the first
/// server's datagrams without a word.
@Suite(.onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "build the switchboard executable first"))
struct ExclusivePortTests {
  @Test(arguments: [ServeListener.tcp, .udp, .http])
  func aSecondServerOnAPlaintextPortExitsOneAndTheFirstKeepsIt(_ listener: ServeListener) async throws {
    try await checkExclusive(listener, flags: [])
  }

  @Test(
    .enabled(ifAvailable: TestPKI.hasOpenSSL && TLSSupport.isAvailable, "needs openssl and TLS (TLSSupport)"),
    arguments: [ServeListener.tls, .https])
  func aSecondServerOnATLSPortExitsOneAndTheFirstKeepsIt(_ listener: ServeListener) async throws {
    let pki = try TestPKI()
    try await checkExclusive(listener, flags: ["--tls-cert", pki.serverCertificate, "--tls-key", pki.serverKey])
  }

  private func checkExclusive(_ listener: ServeListener, flags: [String]) async throws {
    // The first also serves UDP, so that a datagram proves it still answers there.
    let first = try await ServeProcess.start(["--ephemeral"] + flags, listeners: [listener, .udp])
    defer { first.stop() }
    let port = first.port(listener)
    let ports = ServeListener.allCases.flatMap { ["--\($0.rawValue)-port", $0 == listener ? "\(port)" : "0"] }
    let second = try ChildProcess(
      Executables.switchboard!,
      ["serve", "--host", "127.0.0.1", "--no-advertise", "--ephemeral"] + flags + ports)
    #expect(try await second.waitForExit() == 1, "stdout: \(second.stdout)")
    let name = listener.rawValue.uppercased()
    #expect(second.stderr.contains("cannot listen for \(name) on 127.0.0.1:\(port): "), "\(second.stderr)")
    #expect(second.stderr.contains("(port in use; pick another with --\(listener.rawValue)-port)"), "\(second.stderr)")

    #expect(first.isRunning)
    let peer = try DatagramPeer(try SocketAddress(host: "127.0.0.1", port: first.udp))
    try peer.send("still here")
    #expect(try peer.receive() == "Server received: still here\n")
    if listener != .udp {
      let fd = Posix.makeSocket(family: AF_INET, type: Posix.streamType)
      defer { close(fd) }
      #expect(blockingConnect(fd, to: try SocketAddress(host: "127.0.0.1", port: port)) == 0)
    }
  }
}
