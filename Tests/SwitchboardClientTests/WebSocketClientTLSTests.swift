import Foundation
import SwitchboardClient
import SwitchboardTLS
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `wss://` against Python's `websockets` over Python's `ssl`, with a throwaway PKI.
@Suite(
  .onTestThreads, .serialized,
  .enabled(ifAvailable: PythonPeer.canServeWSS, "needs python3 with websockets and the openssl CLI"),
  .enabled(ifAvailable: TLSSupport.isAvailable, "needs TLS (TLSSupport)"))
struct WebSocketClientTLSTests {
  /// Trusts only the test CA.
  private static func trustingTestCA(_ pki: TestPKI, serverName: String? = nil) -> WebSocketClient.Configuration {
    WebSocketClient.Configuration(tls: TLSConfiguration(trustRoots: .caFile(pki.caFile), serverName: serverName))
  }

  @Test(arguments: ["127.0.0.1", "localhost"])
  func messagesAreEchoedOverTLS(host: String) async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let (server, port) = try await PythonPeer.wssEchoServer(pki: pki, certificate: "server.pem", key: "server.key")
    defer { server.stop() }

    let client = try await WebSocketClient.connect(
      to: "wss://\(host):\(port)/", configuration: Self.trustingTestCA(pki))
    #expect(client.response.status == 101)
    try await client.send(text: "hello over TLS")
    #expect(try await client.nextMessage() == .text("hello over TLS"))
    // Large enough to span many TLS records and to hit the high-water mark.
    let big = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    try await client.send(binary: big)
    #expect(try await client.nextMessage() == .binary(big))
    try await client.ping([1, 2, 3])
    await client.close()
    try await server.waitForOutput("closed 1000")
  }

  @Test func serverSignedByAnUntrustedCAIsTLSFailed() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let (server, port) = try await PythonPeer.wssEchoServer(pki: pki, certificate: "server.pem", key: "server.key")
    defer { server.stop() }

    // The default: the system trust store, which does not hold the test CA.
    let error = await #expect(throws: WebSocketClientError.tlsFailed) {
      _ = try await WebSocketClient.connect(to: "wss://127.0.0.1:\(port)/")
    }
    #expect(error?.tlsError == .certificateVerifyFailed)
    #expect(error?.message.contains("unable to get local issuer certificate") == true, "\(String(describing: error))")
  }

  @Test func selfSignedServerIsTLSFailed() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let (server, port) = try await PythonPeer.wssEchoServer(pki: pki, certificate: "self.pem", key: "self.key")
    defer { server.stop() }

    let error = await #expect(throws: WebSocketClientError.tlsFailed) {
      _ = try await WebSocketClient.connect(to: "wss://127.0.0.1:\(port)/", configuration: Self.trustingTestCA(pki))
    }
    #expect(error?.tlsError == .certificateVerifyFailed)
    #expect(error?.message.contains("self-signed certificate") == true, "\(String(describing: error))")
  }

  @Test func wrongServerNameIsHostnameMismatch() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let (server, port) = try await PythonPeer.wssEchoServer(pki: pki, certificate: "server.pem", key: "server.key")
    defer { server.stop() }

    let error = await #expect(throws: WebSocketClientError.tlsFailed) {
      _ = try await WebSocketClient.connect(
        to: "wss://127.0.0.1:\(port)/", configuration: Self.trustingTestCA(pki, serverName: "wrong.example"))
    }
    #expect(error?.tlsError == .certificateVerifyFailed)
    #expect(error?.message.contains("hostname mismatch") == true, "\(String(describing: error))")
  }

  @Test func pinnedKeyOfASelfSignedServerIsAccepted() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let (server, port) = try await PythonPeer.wssEchoServer(pki: pki, certificate: "self.pem", key: "self.key")
    defer { server.stop() }
    let pin = try pki.publicKeyPin(ofCertificate: "self.pem")

    // The pin is the only check: chain verification is off.
    let pinned = WebSocketClient.Configuration(tls: TLSConfiguration(pinnedSHA256: [pin], verify: false))
    let client = try await WebSocketClient.connect(to: "wss://127.0.0.1:\(port)/", configuration: pinned)
    try await client.send(text: "pinned")
    #expect(try await client.nextMessage() == .text("pinned"))
    await client.close()

    // Another key's pin is refused.
    let otherPin = try pki.publicKeyPin(ofCertificate: "server.pem")
    let wrong = WebSocketClient.Configuration(tls: TLSConfiguration(pinnedSHA256: [otherPin], verify: false))
    let error = await #expect(throws: WebSocketClientError.tlsFailed) {
      _ = try await WebSocketClient.connect(to: "wss://127.0.0.1:\(port)/", configuration: wrong)
    }
    #expect(error?.tlsError == .pinMismatch)
  }

  @Test func refusedSecureConnectionIsConnectFailed() async throws {
    let bound = try RawSocket(listen: false)
    let error = await #expect(throws: WebSocketClientError.connectFailed) {
      _ = try await WebSocketClient.connect(to: "wss://127.0.0.1:\(bound.port)/")
    }
    #expect(error?.ioError?.errno == ECONNREFUSED)
  }

  @Test func silentTLSServerTimesOut() async throws {
    let listener = try RawSocket(listen: true)  // TCP connects; nobody answers the ClientHello
    let start = ContinuousClock.now
    await #expect(throws: WebSocketClientError.timeout) {
      _ = try await WebSocketClient.connect(
        to: "wss://127.0.0.1:\(listener.port)/", configuration: .init(connectTimeout: .milliseconds(300)))
    }
    let elapsed = ContinuousClock.now - start
    #expect(elapsed >= .milliseconds(300))
    #expect(elapsed < .seconds(30))  // only proves it did not hang; machines are shared
  }

  @Test func unreadableCAFileIsTLSFailed() async {
    let configuration = WebSocketClient.Configuration(
      tls: TLSConfiguration(trustRoots: .caFile("/nonexistent/switchboard-ca.pem")))
    let error = await #expect(throws: WebSocketClientError.tlsFailed) {
      _ = try await WebSocketClient.connect(to: "wss://127.0.0.1:1/", configuration: configuration)
    }
    #expect(error?.tlsError == .invalidConfiguration)
  }
}
