import Foundation
import SwitchboardIO
import SwitchboardTLS
import Testing
import SwitchboardTestSupport

/// Our server side: against our client, and against `openssl s_client`.
@Suite(.onTestThreads, .serialized, .enabled(ifAvailable: TLSSupport.isAvailable, "needs TLS (TLSSupport)"))
struct TLSServerTests {
  /// A TLS echo server of ours on 127.0.0.1, port 0: a TCPListener whose connections are
  /// wrapped with `TLSConnection(accepting:context:)` and a recording, echoing delegate.
  final class EchoServer: Sendable {
    let loop: EventLoop
    let address: SocketAddress
    let connections = Locked<[TLSConnectionLog]>([])
    private let listener: LoopBound<TCPListener>

    init(context: TLSContext) throws {
      let loop = try EventLoop()
      let connections = self.connections
      do {
        let bind = try SocketAddress(host: "127.0.0.1", port: 0)
        listener = try onLoop(loop) {
          let listener = try TCPListener(address: bind, loop: loop) { fd, peer in
            do {
              let tcp = try TCPConnection(fd: fd, loop: loop, remoteAddress: peer)
              let connection = try TLSConnection(accepting: tcp, context: context)
              let log = TLSConnectionLog()
              let delegate = RecordingTLSDelegate(log: log)
              delegate.echo = true
              connection.delegate = delegate
              connections.withLock { $0.append(log) }
            } catch {
              Issue.record("accepting failed: \(error)")
            }
          }
          return LoopBound(listener, on: loop)
        }
        address = try onLoop(loop) { [listener] in listener.value.localAddress }
      } catch {
        loop.shutdownGracefully()
        throw error
      }
      self.loop = loop
    }

    /// A server with the test PKI's server certificate.
    convenience init(pki: TestPKI) throws {
      try self.init(
        context: TLSContext(
          serverConfiguration: TLSServerConfiguration(
            certificateChainPEMFile: pki.serverCertificate, privateKeyPEMFile: pki.serverKey)))
    }

    func waitForConnection(_ index: Int = 0) throws -> TLSConnectionLog {
      guard eventually({ connections.value.count > index }) else {
        throw TestFailure("no connection accepted")
      }
      return connections.value[index]
    }

    func shutdown() {
      let listener = self.listener
      _ = try? onLoop(loop) { listener.value.close() }
      loop.shutdownGracefully()
    }
  }

  /// `openssl s_client` connecting to `server` as `localhost`, failing on a certificate it
  /// cannot verify, quiet, with `options` added.
  private func sClient(to server: EchoServer, pki: TestPKI, _ options: [String]) throws -> ChildProcess {
    try ChildProcess(
      command: [
        "openssl", "s_client", "-connect", "127.0.0.1:\(server.address.port)", "-servername", "localhost",
        "-verify_return_error", "-quiet",
      ] + options, directory: pki.directory)
  }

  @Test func ourClientAndOurServerEchoAndAgreeOnALPN() throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let context = try TLSContext(
      serverConfiguration: TLSServerConfiguration(
        certificateChainPEMFile: pki.serverCertificate, privateKeyPEMFile: pki.serverKey,
        applicationProtocols: ["switchboard/1", "http/1.1"]))
    let server = try EchoServer(context: context)
    defer { server.shutdown() }
    let clientLoop = try EventLoop()
    defer { clientLoop.shutdownGracefully() }

    let configuration = TLSConfiguration(
      trustRoots: .caFile(pki.caFile), serverName: "localhost",
      applicationProtocols: ["http/1.1", "switchboard/1"])
    let client = try connectClient(to: server.address, configuration: configuration, on: clientLoop).get()
    let agreed = try onLoop(clientLoop) { client.connection.value.negotiatedProtocol }
    #expect(agreed == "switchboard/1", "the server's preference wins")

    let payload = pattern(count: 200_000, seed: 3)
    try client.write(payload)
    #expect(eventually { client.log.state.value.received.count >= payload.count })
    #expect(firstDifference(client.log.received, payload) == nil)

    let serverSide = try server.waitForConnection()
    #expect(serverSide.state.value.handshakes == 1)
    try client.close()
    #expect(eventually { client.log.closed && serverSide.closed })
    #expect(client.log.closeError == nil)
    #expect(serverSide.eofCount == 1, "the server read our close_notify as EOF")
    #expect(serverSide.closeError == nil)
    #expect(firstDifference(serverSide.received, payload) == nil)
  }

  @Test func opensslSClientTalksToOurServer() throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try EchoServer(pki: pki)
    defer { server.shutdown() }

    let client = try sClient(
      to: server, pki: pki, ["-CAfile", pki.caFile, "-verify_hostname", "localhost", "-no_ign_eof"])
    defer { client.stop() }
    client.write("ping from s_client\n")
    try client.waitForOutput("ping from s_client")
    // End of input: s_client sends close_notify and exits.
    client.closeInput()
    #expect(try client.waitForExit() == 0, "stderr: \(client.stderr)")
    let serverSide = try server.waitForConnection()
    #expect(eventually { serverSide.closed })
    #expect(serverSide.eofCount == 1)
    #expect(serverSide.closeError == nil)
  }

  @Test func aClientThatRejectsOurCertificateEndsTheHandshakeWithAnAlert() throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try EchoServer(pki: pki)
    defer { server.shutdown() }
    // s_client without the test CA: verification fails and it sends "unknown CA".
    let client = try sClient(to: server, pki: pki, ["-CAfile", pki.selfSignedCertificate])
    defer { client.stop() }
    #expect(try client.waitForExit() != 0)
    let serverSide = try server.waitForConnection()
    #expect(eventually { serverSide.closed })
    #expect(serverSide.closeError == .handshakeFailed)
    #expect(
      serverSide.closeError?.reason.contains("unknown ca") == true,
      "\(String(describing: serverSide.closeError))")
    #expect(serverSide.state.value.handshakes == 0)
  }

  @Test func aKeyThatDoesNotMatchTheCertificateIsRejected() throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let configuration = TLSServerConfiguration(
      certificateChainPEMFile: pki.serverCertificate, privateKeyPEMFile: pki.selfSignedKey)
    #expect(throws: TLSError.keyMismatch) { try TLSContext(serverConfiguration: configuration) }
    let missing = TLSServerConfiguration(
      certificateChainPEMFile: pki.path("absent.pem"), privateKeyPEMFile: pki.serverKey)
    #expect(throws: TLSError.invalidConfiguration) { try TLSContext(serverConfiguration: missing) }
  }
}
