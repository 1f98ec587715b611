import SwitchboardIO
import SwitchboardTestSupport
import Testing

@testable import SwitchboardAuth

/// A build without a crypto library for tokens (Linux with `SWITCHBOARD_WITHOUT_OPENSSL=1`):
/// every key is refused with ``TokenError/unavailable`` naming the platform, after the checks
/// that need no library (a short secret, an unusable PEM keep their own answers).
@Suite(
  .onTestThreads,
  .enabled(ifAvailable: !TokenSupport.isAvailable, "only where token signatures are unavailable"))
struct TokenUnavailableTests {
  private func expectUnavailable(_ error: TokenError?, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(error == .unavailable, sourceLocation: sourceLocation)
    #expect(
      error?.detail.contains("this build on \(BuildPlatform.name) has neither") == true,
      sourceLocation: sourceLocation)
    #expect(error?.answer == "token signatures unavailable", sourceLocation: sourceLocation)
  }

  @Test func secretsAreRefusedNamingThePlatform() {
    expectUnavailable(#expect(throws: TokenError.self) { try TokenKey(secret: testSecret) })
    #expect(throws: TokenError.invalidKey) { try TokenKey(secret: Array("short".utf8)) }
  }

  @Test(.enabled(ifAvailable: TestKeys.shared != nil, "needs the openssl CLI"))
  func pemKeysAreReadThenRefusedNamingThePlatform() throws {
    let keys = try #require(TestKeys.shared)
    for pem in [keys.rsaPublic, keys.ecPublic, keys.rsaPrivate, keys.ecPrivate, keys.ecCertificate] {
      expectUnavailable(#expect(throws: TokenError.self) { try TokenKey(pem: pem) })
    }
    #expect(throws: TokenError.invalidKey) { try TokenKey(pem: keys.rsa1024Private) }
  }
}
