import SwitchboardTestSupport
import Testing

@testable import SwitchboardAuth

/// Tokens built by hand (any header, any payload) and signed with an HS256 secret.
enum HandMade {
  static let key = try! TokenKey(secret: testSecret)

  static func token(
    header: String = #"{"alg":"HS256","typ":"JWT"}"#, payload: String, key: TokenKey = HandMade.key
  ) -> String {
    let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
    return input + "." + Base64URL.encode(try! key.sign(Array(input.utf8)))
  }

  static func claims(sub: String = "alice", exp: Int64? = testNow + 600, extra: String = "") -> String {
    var parts = [#""sub":\#(JSONValue.string(sub).encoded())"#]
    if let exp { parts.append(#""exp":\#(exp)"#) }
    if !extra.isEmpty { parts.append(extra) }
    return "{" + parts.joined(separator: ",") + "}"
  }
}

/// Verification with HS256: the RFC 7515 vector, every answer in its turn, time with leeway,
/// `kid` choice, limits.
@Suite(
  .onTestThreads,
  .enabled(ifAvailable: TokenSupport.isAvailable, "needs a crypto library for tokens (TokenSupport)"))
struct TokenVerifierTests {
  let verifier = TokenVerifier(keys: [HandMade.key])

  func refusal(_ token: String, _ verifier: TokenVerifier? = nil, now: Int64 = testNow) -> TokenError? {
    do {
      _ = try (verifier ?? self.verifier).verify(token, now: now)
      return nil
    } catch {
      return error
    }
  }

  /// RFC 7515 appendix A.1: its HS256 signature verifies; it has no `sub`, which is the next answer.
  @Test func rfc7515HS256ExampleVerifiesAndLacksASubject() throws {
    let key = try TokenKey(
      secret: try #require(
        Base64URL.decode(
          "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow")))
    let token =
      "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    let verifier = TokenVerifier(keys: [key])
    #expect(refusal(token, verifier, now: 1_300_819_000) == .missingSubject)
    var flipped = Array(token.utf8)
    flipped[flipped.count - 2] = UInt8(ascii: "Y")
    #expect(refusal(String(decoding: flipped, as: UTF8.self), verifier, now: 1_300_819_000) == .badSignature)
    let parsed = try UnverifiedToken(parsing: token)
    #expect(parsed.header.type == "JWT")
    #expect(
      parsed.payload
        == .object([
          "iss": .string("joe"), "exp": .number(1_300_819_380), "http://example.com/is_root": .bool(true),
        ]))
    #expect(throws: TokenError.missingSubject) { try parsed.unverifiedClaims() }
  }

  @Test func aGoodTokenGivesItsClaims() throws {
    let token = HandMade.token(
      payload: HandMade.claims(extra: #""rooms":["team-*","lobby"],"iat":\#(testNow),"x":{"y":[1]}"#))
    let verified = try verifier.verify(token, now: testNow)
    #expect(verified.claims.subject == "alice")
    #expect(verified.claims.rooms.map(\.text) == ["team-*", "lobby"])
    #expect(verified.claims.allows(room: "team-red") && verified.claims.allows(room: "lobby"))
    #expect(!verified.claims.allows(room: "ops"))
    #expect(verified.claims.expiresAt == testNow + 600 && verified.claims.issuedAt == testNow)
    #expect(verified.claims.all["x"] == .object(["y": .array([.number(1)])]))
  }

  @Test func withoutARoomsClaimNoRoomIsAllowed() throws {
    let verified = try verifier.verify(HandMade.token(payload: HandMade.claims()), now: testNow)
    #expect(verified.claims.rooms.isEmpty && !verified.claims.allows(room: "lobby"))
  }

  @Test func expiryAndNotBeforeHonourTheLeeway() {
    let leeway = TokenVerifier.defaultLeeway
    #expect(leeway == 60)
    let exp = HandMade.token(payload: HandMade.claims(exp: testNow))
    #expect(refusal(exp, now: testNow + leeway - 1) == nil)
    #expect(refusal(exp, now: testNow + leeway) == .expired)
    let nbf = HandMade.token(
      payload: HandMade.claims(exp: testNow + 3_600, extra: #""nbf":\#(testNow + 100)"#))
    #expect(refusal(nbf, now: testNow + 100 - leeway) == nil)
    #expect(refusal(nbf, now: testNow + 100 - leeway - 1) == .notYetValid)
    let iat = HandMade.token(
      payload: HandMade.claims(exp: testNow + 3_600, extra: #""iat":\#(testNow + 1_000)"#))
    #expect(refusal(iat) == .notYetValid)
    let strict = TokenVerifier(keys: [HandMade.key], leeway: 0)
    #expect(refusal(exp, strict, now: testNow) == .expired)
    #expect(refusal(exp, strict, now: testNow - 1) == nil)
    // Fractional dates round the strict way: exp down, nbf up.
    let fractional = HandMade.token(
      payload: HandMade.claims(exp: nil, extra: #""exp":\#(testNow).9,"nbf":\#(testNow).1"#))
    #expect(refusal(fractional, strict, now: testNow) == .expired)
    #expect(refusal(fractional, strict, now: testNow - 1) == .notYetValid)
  }

  @Test func aMissingExpiryIsRefusedUnlessAllowed() throws {
    let token = HandMade.token(payload: HandMade.claims(exp: nil))
    #expect(refusal(token) == .missingExpiration)
    let lenient = TokenVerifier(keys: [HandMade.key], requiresExpiration: false)
    #expect(try lenient.verify(token, now: testNow).claims.subject == "alice")
  }

  @Test(
    arguments: [
      (#"{"exp":1}"#, TokenError.missingSubject), (#"{"sub":"","exp":1}"#, .missingSubject),
      (#"{"sub":5,"exp":1}"#, .missingSubject), (#"{"sub":"a\u0007b","exp":1}"#, .missingSubject),
      (#"{"sub":"\#(String(repeating: "x", count: 65))","exp":1}"#, .missingSubject),
      (#"{"sub":"a","exp":"soon"}"#, .invalidClaim), (#"{"sub":"a","exp":1,"nbf":true}"#, .invalidClaim),
      (#"{"sub":"a","exp":1,"rooms":"lobby"}"#, .invalidClaim),
      (#"{"sub":"a","exp":1,"rooms":["a b"]}"#, .invalidClaim),
      (#"{"sub":"a","exp":1,"rooms":[3]}"#, .invalidClaim), (#"{"sub":"a","exp":1e300}"#, .invalidClaim),
      (#"{"sub":"a","exp":1,"iss":7}"#, .invalidClaim), (#"{"sub":"a","exp":1,"aud":{}}"#, .invalidClaim),
    ] as [(String, TokenError)])
  func unusableClaimsAreRefusedAfterTheSignature(_ payload: String, _ expected: TokenError) {
    #expect(refusal(HandMade.token(payload: payload), now: 0) == expected, "\(payload)")
  }

  @Test(
    arguments: [
      (#"{"alg":"none"}"#, TokenError.unsupportedAlgorithm), (#"{"alg":"NoNe"}"#, .unsupportedAlgorithm),
      (#"{"alg":"HS512"}"#, .unsupportedAlgorithm), (#"{"typ":"JWT"}"#, .unsupportedAlgorithm),
      (#"{"alg":1}"#, .unsupportedAlgorithm), (#"{"alg":"RS256"}"#, .unsupportedAlgorithm),
      (#"{"alg":"HS256","crit":["exp"]}"#, .malformed), (#"{"alg":"HS256","enc":"A128GCM"}"#, .malformed),
      (#"{"alg":"HS256","kid":5}"#, .malformed), (#"[]"#, .malformed),
      (#"{"alg":"HS256","alg":"none"}"#, .malformed),
    ] as [(String, TokenError)])
  func unacceptableHeadersAreRefused(_ header: String, _ expected: TokenError) {
    #expect(refusal(HandMade.token(header: header, payload: HandMade.claims())) == expected, "\(header)")
  }

  @Test func anUnsignedTokenIsRefusedWhateverItsSignatureSegment() {
    let header = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
    let payload = Base64URL.encode(Array(HandMade.claims().utf8))
    #expect(refusal("\(header).\(payload).") == .unsupportedAlgorithm)
    #expect(refusal("\(header).\(payload)") == .malformed)
    // The same payload under an HS256 header with no signature: wrong length, not accepted.
    let hs = Base64URL.encode(Array(#"{"alg":"HS256"}"#.utf8))
    #expect(refusal("\(hs).\(payload).") == .badSignature)
  }

  @Test(arguments: [
    "", "a", "a.b", "a.b.c.d", "a.b.c.d.e", "..", "eyJhbGciOiJIUzI1NiJ9.W10.AA", "e30=.e30.AA",
    "eyJhbGciOiJIUzI1NiJ9.e30",
  ])
  func malformedShapesAreRefused(_ token: String) {
    #expect(refusal(token) == .malformed, "\(token)")
  }

  @Test func aTamperedPayloadOrAnotherSecretFailsTheSignature() throws {
    let token = HandMade.token(payload: HandMade.claims())
    let other = HandMade.token(payload: HandMade.claims(sub: "mallory"))
    let parts = token.split(separator: ".")
    let swapped = "\(parts[0]).\(other.split(separator: ".")[1]).\(parts[2])"
    #expect(refusal(swapped) == .badSignature)
    let stranger = try TokenKey(secret: Array("another-secret-of-at-least-32-by".utf8))
    #expect(refusal(HandMade.token(payload: HandMade.claims(), key: stranger)) == .badSignature)
  }

  @Test func keyIDsPickTheKey() throws {
    let a = try TokenKey(secret: Array(repeating: UInt8(ascii: "a"), count: 32), id: "a")
    let b = try TokenKey(secret: Array(repeating: UInt8(ascii: "b"), count: 32), id: "b")
    let unnamed = try TokenKey(secret: Array(repeating: UInt8(ascii: "c"), count: 32))
    let verifier = TokenVerifier(keys: [a, b])
    let byB = HandMade.token(header: #"{"alg":"HS256","kid":"b"}"#, payload: HandMade.claims(), key: b)
    #expect(refusal(byB, verifier) == nil)
    let claimsA = HandMade.token(header: #"{"alg":"HS256","kid":"a"}"#, payload: HandMade.claims(), key: b)
    #expect(refusal(claimsA, verifier) == .badSignature)
    let unknown = HandMade.token(header: #"{"alg":"HS256","kid":"z"}"#, payload: HandMade.claims(), key: b)
    #expect(refusal(unknown, verifier) == .unknownKey)
    // No key of that id: the keys without one serve; without a kid, every key is tried.
    let withUnnamed = TokenVerifier(keys: [a, unnamed])
    #expect(
      refusal(
        HandMade.token(header: #"{"alg":"HS256","kid":"z"}"#, payload: HandMade.claims(), key: unnamed),
        withUnnamed) == nil)
    #expect(refusal(HandMade.token(payload: HandMade.claims(), key: b), verifier) == nil)
  }

  @Test func issuerAndAudienceAreCheckedWhenConfigured() {
    let plain = HandMade.token(payload: HandMade.claims())
    let forUs = HandMade.token(payload: HandMade.claims(extra: #""aud":["other","switchboard"],"iss":"idp""#))
    #expect(refusal(forUs) == .wrongAudience)
    let strict = TokenVerifier(keys: [HandMade.key], issuer: "idp", audience: "switchboard")
    #expect(refusal(forUs, strict) == nil)
    #expect(refusal(plain, strict) == .wrongIssuer)
    let audienceOnly = TokenVerifier(keys: [HandMade.key], audience: "switchboard")
    #expect(refusal(plain, audienceOnly) == .wrongAudience)
  }

  @Test func limitsAreEnforcedBeforeTheWork() {
    let small = TokenLimits(maxTokenLength: 100)
    let token = HandMade.token(
      payload: HandMade.claims(extra: #""pad":"\#(String(repeating: "x", count: 80))""#))
    #expect(refusal(token, TokenVerifier(keys: [HandMade.key], limits: small)) == .tooLarge)
    let big = HandMade.token(
      payload: HandMade.claims(extra: #""pad":"\#(String(repeating: "x", count: 5_000))""#))
    #expect(refusal(big) == .tooLarge)
    let deep = HandMade.token(
      payload: HandMade.claims(
        extra: #""d":\#(String(repeating: "[", count: 20) + String(repeating: "]", count: 20))"#))
    #expect(refusal(deep) == .tooLarge)
    let rooms = (0..<65).map { "\"r\($0)\"" }.joined(separator: ",")
    #expect(refusal(HandMade.token(payload: HandMade.claims(extra: #""rooms":[\#(rooms)]"#))) == .tooLarge)
    #expect(refusal(String(repeating: "a", count: 10_000)) == .tooLarge)
  }

  @Test func everyAnswerIsShortAndNeverEchoesTheToken() {
    let kinds: [TokenError] = [
      .malformed, .tooLarge, .unsupportedAlgorithm, .unknownKey, .badSignature, .expired, .notYetValid,
      .missingSubject, .missingExpiration, .invalidClaim, .wrongAudience, .wrongIssuer, .invalidKey,
      .cannotSign,
    ]
    #expect(Set(kinds.map(\.answer)).count == kinds.count)
    for kind in kinds {
      #expect(kind.answer.hasPrefix("token ") && kind.answer.utf8.count <= 123)
      #expect(kind.with("detail") == kind)
    }
    #expect(TokenError.expired.answer == "token expired")
  }

  @Test func secretsShorterThan32BytesAreRefused() {
    #expect(throws: TokenError.invalidKey) { try TokenKey(secret: Array(repeating: 1, count: 31)) }
  }

  @Test func mintedTokensVerify() throws {
    let claims = TokenClaims(
      subject: "bob", rooms: [RoomPattern("ops")!], expiresAt: testNow + 60, notBefore: testNow,
      issuedAt: testNow)
    let token = try TokenSigner.sign(claims, with: HandMade.key)
    let verified = try verifier.verify(token, now: testNow)
    #expect(verified.claims == claims)
    #expect(verified.header.algorithm == .hs256 && verified.header.type == "JWT")
  }
}
