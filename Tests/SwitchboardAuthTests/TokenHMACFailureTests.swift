import SwitchboardTestSupport
import Testing

@testable import SwitchboardAuth

/// An HS256 key whose HMAC cannot be computed verifies nothing and signs nothing. OpenSSL's
/// `HMAC` cannot be made to fail from a test, so the failure comes through the key's seam
/// (`TokenKey.HMACPrimitive`): a primitive that reports failure and writes no MAC, as
/// OpenSSL does when it returns `NULL`.
@Suite(
  .onTestThreads,
  .enabled(ifAvailable: TokenSupport.isAvailable, "needs a crypto library for tokens (TokenSupport)"))
struct TokenHMACFailureTests {
  let key = try! TokenKey(secret: Array("0123456789abcdef0123456789abcdef".utf8))
  let input = Array("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5In0".utf8)

  /// Fails and leaves the digest untouched and the length 0.
  let failing: TokenKey.HMACPrimitive = { _, _, _, length in
    length = 0
    return false
  }

  @Test func aFailedHMACVerifiesNoSignatureNotEvenAnEmptyOne() throws {
    // An empty signature (a token ending in `.`) would equal the empty MAC of an ignored failure.
    #expect(!key.verify(signature: [], over: input, hmac: failing))
    #expect(!key.verify(signature: [UInt8](repeating: 0, count: 32), over: input, hmac: failing))
    // The same signature verifies when the HMAC works.
    let good = try key.sign(input)
    #expect(key.verify(signature: good, over: input))
    #expect(!key.verify(signature: good, over: input, hmac: failing))
  }

  @Test func aFailedHMACSignsNothing() {
    #expect(throws: TokenError.cannotSign) { try key.sign(input, hmac: failing) }
    // A primitive that says it succeeded but wrote a short MAC is no MAC either.
    let short: TokenKey.HMACPrimitive = { _, _, _, length in
      length = 16
      return true
    }
    #expect(!key.verify(signature: [UInt8](repeating: 0, count: 16), over: input, hmac: short))
    #expect(throws: TokenError.cannotSign) { try key.sign(input, hmac: short) }
  }
}
