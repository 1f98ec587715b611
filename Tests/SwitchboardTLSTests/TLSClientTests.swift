import SwitchboardIO
import SwitchboardTLS
import Testing
import SwitchboardTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Our client against Python's `ssl` server, with certificates made by the `openssl` CLI.
@Suite(.onTestThreads, .serialized, .enabled(ifAvailable: TLSSupport.isAvailable, "needs TLS (TLSSupport)"))
struct TLSClientTests {
  /// A PKI, a Python server and a client loop for one test; `shutdown()` removes them.
  struct Fixture {
    let pki: TestPKI
    let server: PythonTLSServer
    let loop: EventLoop

    init(selfSigned: Bool = false, mode: PythonTLSServer.Mode = .echo) throws {
      pki = try TestPKI()
      do {
        server = try PythonTLSServer(
          pki: pki, certificate: selfSigned ? pki.selfSignedCertificate : pki.serverCertificate,
          key: selfSigned ? pki.selfSignedKey : pki.serverKey, mode: mode)
      } catch {
        pki.remove()
        throw error
      }
      loop = try EventLoop()
    }

    var trustingTestCA: TLSConfiguration { TLSConfiguration(trustRoots: .caFile(pki.caFile)) }

    func shutdown() {
      loop.shutdownGracefully()
      server.stop()
      pki.remove()
    }
  }

  @Test func handshakeAndEchoWhenTrustingTheTestCA() throws {
    let fixture = try Fixture()
    defer { fixture.shutdown() }
    let client = try connectClient(
      to: fixture.server.address, serverName: "localhost", configuration: fixture.trustingTestCA,
      on: fixture.loop
    ).get()
    let version = try onLoop(fixture.loop) { client.connection.value.session.protocolVersion }
    #expect(version == "TLSv1.3")
    try client.write(Array("hello over TLS\n".utf8))
    #expect(eventually { client.log.received == Array("hello over TLS\n".utf8) })
    try client.close()
    #expect(eventually { client.log.closed })
    #expect(client.log.closeError == nil)
    try fixture.server.process.waitForOutput("CLOSE-NOTIFY")  // the server saw our close_notify
  }

  @Test func trustRootsCanBeGivenAsPEMText() throws {
    let fixture = try Fixture()
    defer { fixture.shutdown() }
    let pem = try String(contentsOfFile: fixture.pki.caFile, encoding: .utf8)
    let configuration = TLSConfiguration(trustRoots: .caPEM(pem), serverName: "localhost")
    let client = try connectClient(to: fixture.server.address, configuration: configuration, on: fixture.loop)
      .get()
    try client.write([1, 2, 3])
    #expect(eventually { client.log.received == [1, 2, 3] })
  }

  @Test func anIPAddressServerNameIsMatchedAgainstIPEntries() throws {
    let fixture = try Fixture()
    defer { fixture.shutdown() }
    let ok = try connectClient(
      to: fixture.server.address, serverName: "127.0.0.1", configuration: fixture.trustingTestCA,
      on: fixture.loop)
    #expect(ok.failure == nil)
    let wrong = try connectClient(
      to: fixture.server.address, serverName: "127.0.0.2", configuration: fixture.trustingTestCA,
      on: fixture.loop)
    #expect(wrong.failure == .certificateVerifyFailed)
    #expect(wrong.failure?.reason == "IP address mismatch")
  }

  @Test func anUntrustedCAFailsWithOpenSSLsReason() throws {
    let fixture = try Fixture()
    defer { fixture.shutdown() }
    // The system store does not know the test CA.
    let result = try connectClient(
      to: fixture.server.address, serverName: "localhost", configuration: TLSConfiguration(), on: fixture.loop
    )
    let error = try #require(result.failure)
    #expect(error == .certificateVerifyFailed)
    #expect(error.reason == "unable to get local issuer certificate")
    #expect(error.description.contains("certificate verify failed"))
    try fixture.server.process.waitForOutput("HANDSHAKE-FAILED")  // the server heard our alert
  }

  @Test func aSelfSignedServerFailsWithSelfSignedReason() throws {
    let fixture = try Fixture(selfSigned: true)
    defer { fixture.shutdown() }
    let result = try connectClient(
      to: fixture.server.address, serverName: "localhost", configuration: fixture.trustingTestCA,
      on: fixture.loop)
    let error = try #require(result.failure)
    #expect(error == .certificateVerifyFailed)
    #expect(error.reason == "self-signed certificate")
  }

  @Test func aWrongServerNameFailsWithHostnameMismatch() throws {
    let fixture = try Fixture()
    defer { fixture.shutdown() }
    let result = try connectClient(
      to: fixture.server.address, serverName: "chat.example.com", configuration: fixture.trustingTestCA,
      on: fixture.loop)
    let error = try #require(result.failure)
    #expect(error == .certificateVerifyFailed)
    #expect(error.reason == "hostname mismatch")
  }

  @Test func verifyingWithoutAServerNameIsAConfigurationError() throws {
    let fixture = try Fixture()
    defer { fixture.shutdown() }
    let result = try connectClient(
      to: fixture.server.address, configuration: fixture.trustingTestCA, on: fixture.loop)
    #expect(result.failure == .invalidConfiguration)
  }

  @Test func aMatchingPinConnectsAndAnotherPinFails() throws {
    let fixture = try Fixture()
    defer { fixture.shutdown() }
    let pin = try fixture.pki.publicKeyPin(ofCertificate: "server.pem")
    // Our own computation of the pin agrees with the openssl CLI's.
    let pem = try String(contentsOfFile: fixture.pki.serverCertificate, encoding: .utf8)
    #expect(try TLSConfiguration.publicKeySHA256(certificatePEM: pem) == pin)

    var pinned = fixture.trustingTestCA
    pinned.pinnedSHA256 = [pin]
    let ok = try connectClient(
      to: fixture.server.address, serverName: "localhost", configuration: pinned, on: fixture.loop)
    let client = try ok.get()
    let peerPin = try onLoop(fixture.loop) { client.connection.value.session.peerPublicKeySHA256 }
    #expect(peerPin == pin)

    var wrongPin = fixture.trustingTestCA
    wrongPin.pinnedSHA256 = [try fixture.pki.publicKeyPin(ofCertificate: "ca.pem")]
    let failed = try connectClient(
      to: fixture.server.address, serverName: "localhost", configuration: wrongPin, on: fixture.loop)
    let error = try #require(failed.failure)
    #expect(error == .pinMismatch)
    #expect(error.reason.contains("not pinned"))
  }

  @Test func aPinAloneCanTrustASelfSignedServerWithVerifyOff() throws {
    let fixture = try Fixture(selfSigned: true)
    defer { fixture.shutdown() }
    let pin = try fixture.pki.publicKeyPin(ofCertificate: "self.pem")
    let configuration = TLSConfiguration(pinnedSHA256: [pin], verify: false)
    let client = try connectClient(to: fixture.server.address, configuration: configuration, on: fixture.loop)
      .get()
    try client.write([42])
    #expect(eventually { client.log.received == [42] })
    let other = TLSConfiguration(pinnedSHA256: [[UInt8](repeating: 7, count: 32)], verify: false)
    let failed = try connectClient(to: fixture.server.address, configuration: other, on: fixture.loop)
    #expect(failed.failure == .pinMismatch)
  }

  @Test func aMebibyteRoundTripsAcrossManyRecords() throws {
    let fixture = try Fixture()
    defer { fixture.shutdown() }
    let client = try connectClient(
      to: fixture.server.address, serverName: "localhost", configuration: fixture.trustingTestCA,
      on: fixture.loop
    ).get()
    let payload = pattern(count: 1 << 20, seed: 9)
    // Uneven pieces, so records and TCP segments split differently each way.
    var start = 0
    var pieces: [[UInt8]] = []
    for size in [1, 100, 16_383, 16_385, 70_000, 300_000] where start < payload.count {
      let end = min(start + size, payload.count)
      pieces.append(Array(payload[start..<end]))
      start = end
    }
    pieces.append(Array(payload[start...]))
    for piece in pieces { try client.write(piece) }
    #expect(eventually(timeout: .seconds(30)) { client.log.state.value.received.count >= payload.count })
    #expect(firstDifference(client.log.received, payload) == nil)
  }

  @Test func theServersCloseNotifyIsReadAsEOFAndAnswered() throws {
    let fixture = try Fixture(mode: .greetThenClose)
    defer { fixture.shutdown() }
    let client = try connectClient(
      to: fixture.server.address, serverName: "localhost", configuration: fixture.trustingTestCA,
      on: fixture.loop
    ).get()
    #expect(eventually { client.log.closed })
    #expect(client.log.received == Array("hello\n".utf8))
    #expect(client.log.eofCount == 1)
    #expect(client.log.closeError == nil)
    // Our default EOF handling answered with close_notify, which ends the server's unwrap().
    try fixture.server.process.waitForOutput("UNWRAP-OK")
  }

  @Test func tcpEOFWithoutCloseNotifyIsReportedAsTruncation() throws {
    let fixture = try Fixture(mode: .greetThenAbort)
    defer { fixture.shutdown() }
    let client = try connectClient(
      to: fixture.server.address, serverName: "localhost", configuration: fixture.trustingTestCA,
      on: fixture.loop
    ).get()
    #expect(eventually { client.log.closed })
    #expect(client.log.received == Array("hello\n".utf8))
    #expect(client.log.eofCount == 0)
    #expect(client.log.closeError == .unexpectedEOF)
  }

  @Test func aRefusedConnectionIsAConnectError() throws {
    let fixture = try Fixture()
    let address = fixture.server.address
    fixture.server.stop()
    defer { fixture.shutdown() }
    let result = try connectClient(
      to: address, serverName: "localhost", configuration: fixture.trustingTestCA, on: fixture.loop)
    let error = try #require(result.failure)
    #expect(error == .connectFailed)
    #expect(error.ioError?.errno == ECONNREFUSED)
  }
}
