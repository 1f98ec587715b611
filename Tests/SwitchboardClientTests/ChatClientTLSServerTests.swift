import Foundation
import SwitchboardClient
import SwitchboardServer
import SwitchboardTLS
import SwitchboardTestSupport
import Testing

/// ``ChatClient`` over `wss://` and `tls://` against the in-process server's TLS
/// listeners, trusting only the test CA: both dialects share rooms with plaintext ones.
@Suite(
  .onTestThreads,
  .enabled(ifAvailable: TestPKI.hasOpenSSL, "needs openssl"),
  .enabled(ifAvailable: TLSSupport.isAvailable, "needs TLS (TLSSupport)"))
struct ChatClientTLSServerTests {
  private func tlsServer(_ pki: TestPKI) throws -> ChatServer {
    try startServer {
      $0.tlsCertificates = [ServerCertificate(certificateFile: pki.serverCertificate, keyFile: pki.serverKey)]
    }
  }

  private func trusting(_ pki: TestPKI) -> ChatClient.Configuration {
    var config = ChatClient.Configuration.forTesting
    config.tls = TLSConfiguration(trustRoots: .caFile(pki.caFile), serverName: "localhost")
    return config
  }

  @Test func wssAndTLSClientsChatWithAPlainTCPClient() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try tlsServer(pki)
    defer { server.shutdown() }
    let https = try #require(server.httpsAddress)
    let tls = try #require(server.tlsAddress)

    let web = try ChatProbe("wss://127.0.0.1:\(https.port)/rooms/dev", name: "webby", configuration: trusting(pki))
    try await web.waitFor("history over wss") { if case .history = $0 { true } else { false } }
    let liner = try ChatProbe("tls://127.0.0.1:\(tls.port)", name: "liner", room: "dev", configuration: trusting(pki))
    try await liner.waitConnected()
    try await web.waitFor("liner's join") {
      if case .presence(let p) = $0, p.kind == .join, p.author == "liner" { true } else { false }
    }
    let plain = try ChatProbe(tcpURL(server), name: "plain", room: "dev")
    try await plain.waitConnected()
    try await liner.waitFor("plain's join") {
      if case .presence(let p) = $0, p.kind == .join, p.author == "plain" { true } else { false }
    }

    _ = try await web.client.send("from wss")
    #expect(try await liner.waitForMessage("from wss").author == "webby")
    #expect(try await plain.waitForMessage("from wss").author == "webby")
    _ = try await liner.client.send("from tls")
    #expect(try await web.waitForMessage("from tls").author == "liner")
    #expect(try await plain.waitForMessage("from tls").author == "liner")
    _ = try await plain.client.send("from tcp")
    #expect(try await web.waitForMessage("from tcp").author == "plain")
    #expect(try await liner.waitForMessage("from tcp").author == "plain")
    await web.stop()
    await liner.stop()
    await plain.stop()
  }

  @Test func aClientThatDoesNotTrustTheCertificateIsRefused() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try tlsServer(pki)
    defer { server.shutdown() }
    var config = ChatClient.Configuration.forTesting
    // The self-signed certificate is not the server's issuer.
    config.tls = TLSConfiguration(trustRoots: .caFile(pki.selfSignedCertificate), serverName: "localhost")
    let probe = try ChatProbe("tls://127.0.0.1:\(server.tlsAddress!.port)", name: "eve", configuration: config)
    try await probe.waitFor("a verify error") {
      if case .error(let error) = $0 { "\(error)".contains("certificate verify failed") } else { false }
    }
    #expect(probe.connectedCount == 0)
    await probe.stop()
  }

  @Test func reloadTLSKeepsConnectionsAndServesTheNewCertificate() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try tlsServer(pki)
    defer { server.shutdown() }
    let liner = try ChatProbe("tls://127.0.0.1:\(server.tlsAddress!.port)", name: "liner", configuration: trusting(pki))
    try await liner.waitConnected()
    let summary = try #require(try server.reloadTLS())
    #expect(summary.contains("/CN=localhost serial 02"), "\(summary)")
    let web = try ChatProbe("wss://127.0.0.1:\(server.httpsAddress!.port)/", name: "webby", configuration: trusting(pki))
    try await web.waitFor("history over wss") { if case .history = $0 { true } else { false } }
    _ = try await web.client.send("after reload")
    #expect(try await liner.waitForMessage("after reload").author == "webby")
    #expect(liner.connectedCount == 1)
    await web.stop()
    await liner.stop()
  }
}
