import Foundation
import SwitchboardAuth
import SwitchboardTestSupport
import Testing

/// PyJWT (python `jwt` with `cryptography`), which nobody here wrote, against this module:
/// its HS256, RS256 and ES256 tokens verify here — and its bad ones get our answers — and our
/// tokens verify there. Keys come from the `openssl` CLI at test time.
@Suite(
  .enabled(
    if: AuthTestEnvironment.hasPyJWT,
    "needs python3 with PyJWT and cryptography (scripts/install-test-peers.sh)"),
  .enabled(ifAvailable: TestKeys.shared != nil, "needs the openssl CLI"), .onTestThreads,
  .enabled(ifAvailable: TokenSupport.isAvailable, "needs a crypto library for tokens (TokenSupport)"))
struct PyJWTInteropTests {
  let keys = TestKeys.shared!
  let now = TokenVerifier.wallClockSeconds()

  /// The files PyJWT reads, per algorithm: what signs, what verifies, and a stranger's key
  /// of the same type (private to sign, public to verify).
  struct Files {
    let sign: String
    let verify: String
    let stranger: String
    let strangerPublic: String
  }

  func files(_ scratch: ScratchDirectory) throws -> [String: Files] {
    [
      "HS256": Files(
        sign: try scratch.write("secret", testSecret),
        verify: scratch.url.appendingPathComponent("secret").path,
        stranger: try scratch.write("stranger", Array("another-secret-of-at-least-32-by".utf8)),
        strangerPublic: scratch.url.appendingPathComponent("stranger").path),
      "RS256": Files(
        sign: try scratch.write("rsa.key", keys.rsaPrivate),
        verify: try scratch.write("rsa.pub", keys.rsaPublic),
        stranger: try scratch.write("rsa2.key", keys.otherRSAPrivate),
        strangerPublic: try scratch.write("rsa2.pub", keys.otherRSAPublic)),
      "ES256": Files(
        sign: try scratch.write("ec.key", keys.ecPrivate), verify: try scratch.write("ec.pub", keys.ecPublic),
        stranger: try scratch.write("ec2.key", keys.otherECPrivate),
        strangerPublic: try scratch.write("ec2.pub", keys.otherECPublic)),
    ]
  }

  func verifier(_ alg: String) throws -> TokenVerifier {
    switch alg {
    case "HS256": TokenVerifier(keys: [try TokenKey(secret: testSecret)])
    case "RS256": TokenVerifier(keys: [try TokenKey(pem: keys.rsaPublic)])
    default: TokenVerifier(keys: [try TokenKey(pem: keys.ecPublic)])
    }
  }

  func answer(_ token: String, _ verifier: TokenVerifier) -> String {
    do {
      let verified = try verifier.verify(token, now: now)
      return "ok \(verified.claims.subject) \(verified.claims.rooms.map(\.text).joined(separator: ","))"
    } catch {
      return error.answer
    }
  }

  @Test(.timeLimit(.minutes(2)))
  func pyjwtTokensGetTheDocumentedAnswers() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let files = try files(scratch)
    let algorithms = ["HS256", "RS256", "ES256"]
    var jobs: [PyJWT.Job] = []
    for alg in algorithms {
      let f = files[alg]!
      jobs += [
        .mint(
          alg: alg, key: f.sign,
          claims: #"{"sub":"alice","rooms":["team-*","lobby"],"exp":\#(now + 600),"iat":\#(now)}"#),
        .mint(alg: alg, key: f.sign, claims: #"{"sub":"alice","exp":\#(now - 3600)}"#),
        .mint(alg: alg, key: f.sign, claims: #"{"sub":"alice","exp":\#(now + 7200),"nbf":\#(now + 3600)}"#),
        .mint(alg: alg, key: f.stranger, claims: #"{"sub":"alice","exp":\#(now + 600)}"#),
        .mint(alg: alg, key: f.sign, claims: #"{"sub":"mallory","exp":\#(now + 600)}"#),
        .mint(
          alg: alg, key: f.sign, claims: #"{"sub":"kid","exp":\#(now + 600)}"#, headers: #"{"kid":"k1"}"#),
      ]
    }
    jobs.append(.mint(alg: "none", key: "-", claims: #"{"sub":"alice","exp":\#(now + 600)}"#))
    let tokens = try PyJWT.run(jobs, in: scratch)
    for (index, alg) in algorithms.enumerated() {
      let t = Array(tokens[(index * 6)..<(index * 6 + 6)])
      let v = try verifier(alg)
      #expect(answer(t[0], v) == "ok alice team-*,lobby", "\(alg) good")
      #expect(answer(t[1], v) == "token expired", "\(alg) expired")
      #expect(answer(t[2], v) == "token not yet valid", "\(alg) nbf")
      #expect(answer(t[3], v) == "token signature invalid", "\(alg) other key")
      // mallory's payload under alice's signature
      let good = t[0].split(separator: ".")
      let mallory = t[4].split(separator: ".")
      #expect(
        answer("\(good[0]).\(mallory[1]).\(good[2])", v) == "token signature invalid", "\(alg) tampered")
      #expect(answer(t[5], v) == "ok kid ", "\(alg) kid")
      // The token is checked only with a key of its own type.
      let others = algorithms.filter { $0 != alg }
      for other in others {
        #expect(
          answer(t[0], try verifier(other)) == "token algorithm not accepted", "\(alg) against \(other)")
      }
    }
    let none = tokens.last!
    for alg in algorithms { #expect(answer(none, try verifier(alg)) == "token algorithm not accepted") }
  }

  @Test(.timeLimit(.minutes(2)))
  func ourTokensVerifyWithPyJWT() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let files = try files(scratch)
    let signers = [
      "HS256": try TokenKey(secret: testSecret), "RS256": try TokenKey(pem: keys.rsaPrivate),
      "ES256": try TokenKey(pem: keys.ecPrivate),
    ]
    let claims = TokenClaims(
      subject: "dave ü", rooms: [RoomPattern("team-*")!], expiresAt: now + 600, notBefore: now - 10,
      issuedAt: now)
    var jobs: [PyJWT.Job] = []
    for alg in ["HS256", "RS256", "ES256"] {
      let token = try TokenSigner.sign(claims, with: signers[alg]!)
      jobs.append(.verify(alg: alg, key: files[alg]!.verify, token: token))
      jobs.append(.verify(alg: alg, key: files[alg]!.strangerPublic, token: token))
    }
    // PyJWT refuses an expired one of ours too.
    let expired = TokenClaims(subject: "dave", expiresAt: now - 100)
    jobs.append(
      .verify(
        alg: "HS256", key: files["HS256"]!.verify,
        token: try TokenSigner.sign(expired, with: signers["HS256"]!)))
    let results = try PyJWT.run(jobs, in: scratch)
    let expected =
      #"ok {"exp": \#(now + 600), "iat": \#(now), "nbf": \#(now - 10), "rooms": ["team-*"], "sub": "dave \u00fc"}"#
    for index in 0..<3 {
      #expect(results[2 * index] == expected)
      #expect(results[2 * index + 1] == "error InvalidSignatureError")
    }
    #expect(results[6] == "error ExpiredSignatureError")
  }
}
