import SwitchboardIO
import SwitchboardRESP
import SwitchboardRedis
import SwitchboardTLS
import SwitchboardTestSupport
import Testing

/// `rediss://` against redis-server's own TLS (Debian builds it with OpenSSL), with a test CA.
@Suite(.onTestThreads, .enabled(ifAvailable: RedisServer.canRunTLS, "redis-server without TLS, or no openssl CLI"))
struct RedisTLSTests {
  @Test(arguments: [RedisConfiguration.ProtocolVersion.resp3, .resp2])
  func redissWorksWithATrustedCA(version: RedisConfiguration.ProtocolVersion) async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try RedisServer(
      RedisServer.Options(password: "pw", tls: (pki.serverCertificate, pki.serverKey, pki.caFile)))
    try await withLoop { loop in
      var configuration = RedisConfiguration.test(server.url(password: "pw"), protocolVersion: version)
      configuration.tls = TLSConfiguration(trustRoots: .caFile(pki.caFile))
      let client = try await RedisClient.connect(configuration: configuration, on: loop)
      defer { client.close() }
      #expect(configuration.url.tls)
      #expect(try await client.send(RESPCommand("SET", "secure", "yes")) == .simpleString("OK"))
      let results = await client.pipeline((0..<1000).map { RESPCommand("INCR", "n\($0 % 10)") })
      #expect(results.allSatisfy { (try? $0.get())?.integer != nil })
      #expect(try await client.send(RESPCommand("GET", "n0")).string == "100")
    }
  }

  @Test func anUntrustedCertificateIsRefused() async throws {
    let pki = try TestPKI()
    defer { pki.remove() }
    let server = try RedisServer(RedisServer.Options(tls: (pki.serverCertificate, pki.serverKey, pki.caFile)))
    try await withLoop { loop in
      // The system's trust store does not know the test CA.
      let error = await #expect(throws: RedisError.self) {
        _ = try await RedisClient.connect(configuration: .test(server.url()), on: loop)
      }
      #expect(error?.kind == .connectFailed, "\(String(describing: error))")
      #expect(error?.message.contains("certificate") == true, "\(String(describing: error))")
    }
  }
}
