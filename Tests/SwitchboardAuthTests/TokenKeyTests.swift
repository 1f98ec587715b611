import SwitchboardTestSupport
import Testing

@testable import SwitchboardAuth

/// RS256 and ES256 keys from PEMs the `openssl` CLI made: signing and verifying both ways,
/// the keys that must be refused, and algorithm confusion.
@Suite(
  .enabled(ifAvailable: TestKeys.shared != nil, "needs the openssl CLI"), .onTestThreads,
  .enabled(ifAvailable: TokenSupport.isAvailable, "needs a crypto library for tokens (TokenSupport)"))
struct TokenKeyTests {
  let keys = TestKeys.shared!
  let claims = TokenClaims(
    subject: "carol", rooms: [RoomPattern("team-*")!], expiresAt: testNow + 600, issuedAt: testNow)

  @Test func publicKeysCertificatesAndPrivateKeysLoad() throws {
    #expect(try TokenKey(pem: keys.rsaPublic).algorithm == .rs256)
    #expect(try TokenKey(pem: keys.ecPublic).algorithm == .es256)
    #expect(try TokenKey(pem: keys.ecCertificate).algorithm == .es256)
    #expect(try TokenKey(pem: keys.rsaPrivate).canSign)
    #expect(try TokenKey(pem: keys.ecWithParameters).algorithm == .es256)
    #expect(try !TokenKey(pem: keys.rsaPublic).canSign)
    #expect(try TokenKey(secret: testSecret).canSign)
  }

  @Test func unusableKeysAreRefused() {
    for (name, pem) in [
      ("RSA 1024", keys.rsa1024Private), ("P-384", keys.p384Private), ("Ed25519", keys.ed25519Private),
      ("encrypted", keys.encryptedECPrivate), ("not PEM", Array("hello".utf8)),
      ("broken PEM", Array("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n".utf8)),
    ] {
      #expect(throws: TokenError.invalidKey, "\(name)") { try TokenKey(pem: pem) }
    }
  }

  @Test(arguments: [TokenAlgorithm.rs256, .es256])
  func signedTokensVerifyWithThePublicKeyAndNotAnother(_ algorithm: TokenAlgorithm) throws {
    let (privatePEM, publicPEM, otherPEM) =
      algorithm == .rs256
      ? (keys.rsaPrivate, keys.rsaPublic, keys.otherRSAPrivate)
      : (keys.ecPrivate, keys.ecPublic, keys.otherECPrivate)
    let signer = try TokenKey(pem: privatePEM)
    let token = try TokenSigner.sign(claims, with: signer)
    let parsed = try UnverifiedToken(parsing: token)
    #expect(parsed.header.algorithm == algorithm)
    if algorithm == .es256 { #expect(parsed.signature.count == 64) }
    let verified = try TokenVerifier(keys: [try TokenKey(pem: publicPEM)]).verify(token, now: testNow)
    #expect(verified.claims == claims)
    let other = TokenVerifier(keys: [try TokenKey(pem: otherPEM)])
    #expect(throws: TokenError.badSignature) { try other.verify(token, now: testNow) }
    #expect(throws: TokenError.cannotSign) {
      try TokenSigner.sign(claims, with: try TokenKey(pem: publicPEM))
    }
  }

  /// The classic attack: an HS256 token whose HMAC key is the server's RSA public key (which
  /// is public). A verifier holding that public key must not use it as a secret.
  @Test func aPublicKeyIsNeverUsedAsAnHMACSecret() throws {
    for publicPEM in [keys.rsaPublic, keys.ecPublic] {
      let forged = try TokenSigner.sign(claims, with: try TokenKey(secret: publicPEM))
      let verifier = TokenVerifier(keys: [try TokenKey(pem: publicPEM)])
      #expect(throws: TokenError.unsupportedAlgorithm) { try verifier.verify(forged, now: testNow) }
      let mixed = TokenVerifier(keys: [try TokenKey(pem: publicPEM), try TokenKey(secret: testSecret)])
      #expect(throws: TokenError.badSignature) { try mixed.verify(forged, now: testNow) }
    }
  }

  @Test func tokensOfOneAsymmetricTypeAreNotCheckedWithTheOther() throws {
    let rsaToken = try TokenSigner.sign(claims, with: try TokenKey(pem: keys.rsaPrivate))
    let ecToken = try TokenSigner.sign(claims, with: try TokenKey(pem: keys.ecPrivate))
    let ecOnly = TokenVerifier(keys: [try TokenKey(pem: keys.ecPublic)])
    let rsaOnly = TokenVerifier(keys: [try TokenKey(pem: keys.rsaPublic)])
    #expect(throws: TokenError.unsupportedAlgorithm) { try ecOnly.verify(rsaToken, now: testNow) }
    #expect(throws: TokenError.unsupportedAlgorithm) { try rsaOnly.verify(ecToken, now: testNow) }
    // Relabelled headers do not help: the signature is over the header.
    let parts = rsaToken.split(separator: ".")
    let relabelled = Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8)) + ".\(parts[1]).\(parts[2])"
    #expect(throws: TokenError.badSignature) { try ecOnly.verify(relabelled, now: testNow) }
    let both = TokenVerifier(keys: [try TokenKey(pem: keys.ecPublic), try TokenKey(pem: keys.rsaPublic)])
    #expect(try both.verify(rsaToken, now: testNow).claims.subject == "carol")
    #expect(try both.verify(ecToken, now: testNow).claims.subject == "carol")
  }

  @Test func es256SignaturesConvertBetweenRawAndDER() throws {
    var random = SeededGenerator(seed: 256)
    for _ in 0..<200 {
      var raw = (0..<64).map { _ in UInt8.random(in: 0...255, using: &random) }
      raw[0] &= 0x7F  // leading zeros and high bits both occur
      if Bool.random(using: &random) { raw[32] = 0 }
      let der = try #require(ECDSASignature.der(fromRaw: raw))
      #expect(ECDSASignature.raw(fromDER: der) == raw)
    }
    #expect(ECDSASignature.der(fromRaw: Array(repeating: 1, count: 63)) == nil)
    #expect(ECDSASignature.raw(fromDER: [0x30, 0x03, 0x02, 0x01]) == nil)
    // A flipped bit anywhere in an ES256 signature fails it.
    let token = try TokenSigner.sign(claims, with: try TokenKey(pem: keys.ecPrivate))
    let verifier = TokenVerifier(keys: [try TokenKey(pem: keys.ecPublic)])
    let parsed = try UnverifiedToken(parsing: token)
    for index in stride(from: 0, to: 64, by: 7) {
      var signature = parsed.signature
      signature[index] ^= 0x10
      let bad = String(decoding: parsed.signingInput, as: UTF8.self) + "." + Base64URL.encode(signature)
      #expect(throws: TokenError.badSignature) { try verifier.verify(bad, now: testNow) }
    }
  }
}
