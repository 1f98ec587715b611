import SwitchboardFuzzSupport
import Foundation
import SwitchboardAuth

// libFuzzer target for the token decoder and verifier: every input must either decode or
// throw a TokenError (never crash, never hang), and what decodes must be canonical — its
// segments re-encode to the same text (strict base64url), its header and payload re-encode
// to JSON that decodes to the same values — and verification with a fixed secret must
// answer with a TokenError or a token whose claims obey the limits.
//
// Three input forms. A token as it arrives (`xxx.yyy.zzz`). Or, when the input starts with
// `{`, a header and a payload as JSON text separated by the first newline: the target signs
// them with its secret first, so mutations reach the JSON parser and the claim checks behind
// the signature (a mutated token's signature never verifies, so those would stay unreached).
// Or, when it starts with `-----BEGIN`, a PEM key file for `TokenKey(pem:)`: the PEM armour
// and DER reader (untrusted bytes too: `--auth-public-key` files) must give an RS256 or ES256
// key or throw a TokenError.
//
// Compiled with -DFUZZ_TOKEN next to --sanitize=fuzzer (`scripts/fuzz token`), it is
// a libFuzzer target driven through `LLVMFuzzerTestOneInput`. Without the flag — a plain
// `swift build` — it is a small program that replays input files through the same check.

/// The secret the corpus's signed tokens were made with (32 bytes, test-only).
let fuzzSecret = Array("switchboard-fuzz-secret-32-bytes".utf8)
/// The moment tokens are checked at: 2026-01-01T00:00:00Z.
let fuzzNow: Int64 = 1_767_225_600
let fuzzKey = try! TokenKey(secret: fuzzSecret)
let fuzzVerifier = TokenVerifier(keys: [fuzzKey])
/// Limits for re-reading what was re-encoded: the default depth, no size limits.
let roundTripLimits = TokenLimits(maxTokenLength: 1 << 20, maxHeaderBytes: 1 << 20, maxPayloadBytes: 1 << 20)

/// One input in either form (see the top of the file).
func checkFuzzInput(_ bytes: [UInt8]) {
  if bytes.starts(with: "-----BEGIN".utf8) { return checkKeyInput(bytes) }
  guard bytes.first == UInt8(ascii: "{") else { return checkTokenInput(bytes) }
  let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
  let header = Array(bytes[..<newline])
  let payload = newline < bytes.endIndex ? Array(bytes[(newline + 1)...]) : []
  let input = Array((Base64URL.encode(header) + "." + Base64URL.encode(payload)).utf8)
  let mac = try! fuzzKey.signature(over: input)
  checkTokenInput(input + Array(".".utf8) + Array(Base64URL.encode(mac).utf8))
}

/// One token. A failed check crashes, which is how libFuzzer learns of it (and saves the input).
func checkTokenInput(_ bytes: [UInt8]) {
  guard let token = try? UnverifiedToken(parsing: bytes) else {
    _ = try? fuzzVerifier.verify(bytes, now: fuzzNow)
    return
  }
  let segments = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
  for segment in segments {
    guard let decoded = Base64URL.decode(segment),
      Base64URL.encode(decoded) == String(decoding: segment, as: UTF8.self)
    else { fatalError("a segment that decoded is not canonical base64url") }
  }
  let payloadText = Array(JSONValue.object(claimsOf(token.payload)).encoded().utf8)
  // Re-encoding may grow the text (a `\f` is written `\u000c`), so not the size limits here.
  let again = try? UnverifiedToken(
    parsing: Array(segments[0]) + Array(".".utf8) + Array(Base64URL.encode(payloadText).utf8)
      + Array(".".utf8) + Array(segments[2]),
    limits: roundTripLimits)
  guard again?.payload == token.payload else {
    fatalError("payload changed in a JSON round trip: \(token.payload)")
  }
  if let verified = try? fuzzVerifier.verify(bytes, now: fuzzNow) {
    let claims = verified.claims
    guard !claims.subject.isEmpty, claims.subject.count <= TokenLimits.defaultMaxSubjectLength,
      claims.rooms.count <= TokenLimits.defaultMaxRooms, verified.header.algorithm == .hs256
    else { fatalError("a verified token breaks the limits: \(claims)") }
  }
}

/// One PEM key file: a key of an asymmetric algorithm, or a TokenError (typed: nothing else
/// can be thrown).
func checkKeyInput(_ bytes: [UInt8]) {
  guard let key = try? TokenKey(pem: bytes) else { return }
  guard key.algorithm != .hs256, key.id == nil else { fatalError("a PEM file made \(key.algorithm) key") }
}

func claimsOf(_ payload: JSONValue) -> [String: JSONValue] {
  if case .object(let members) = payload { return members }
  fatalError("payload of a decoded token is not an object")
}

#if FUZZ_TOKEN
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzTokenInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { Fuzz.one(data, size, checkFuzzInput) }
#else
  @main enum Replay { static func main() { Fuzz.replay(checkFuzzInput) } }
#endif
