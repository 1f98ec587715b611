import Foundation
import SwitchboardTestSupport
import Testing

@testable import SwitchboardAuth

/// Random and mutated tokens never crash the decoder or the verifier: each is refused with a
/// TokenError or verifies with claims inside the limits, and what decodes is canonical. The
/// libFuzzer target (`fuzz-token`, `scripts/fuzz token`) checks the same for much
/// longer; this is its deterministic, always-run cousin (fixed seeds).
@Suite(
  .onTestThreads,
  .enabled(ifAvailable: TokenSupport.isAvailable, "needs a crypto library for tokens (TokenSupport)"))
struct TokenFuzzTests {
  static let secret = Array("switchboard-fuzz-secret-32-bytes".utf8)
  static let key = try! TokenKey(secret: secret)
  static let verifier = TokenVerifier(keys: [key])

  enum Outcome { case refused, decoded, verified }

  /// Decodes and verifies; checks what the fuzzer checks.
  @discardableResult
  static func check(_ bytes: [UInt8]) -> Outcome {
    guard let token = try? UnverifiedToken(parsing: bytes) else {
      #expect((try? verifier.verify(bytes, now: testNow)) == nil)
      return .refused
    }
    for segment in bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
      let decoded = Base64URL.decode(segment)
      #expect(decoded.map { Base64URL.encode($0) } == String(decoding: segment, as: UTF8.self))
    }
    #expect((try? JSONParser.parse(Array(token.payload.encoded().utf8), maxDepth: 16)) == token.payload)
    do {
      let verified = try verifier.verify(bytes, now: testNow)
      #expect(!verified.claims.subject.isEmpty && verified.claims.subject.count <= 64)
      #expect(verified.claims.rooms.count <= 64 && verified.header.algorithm == .hs256)
      return .verified
    } catch {
      return .decoded
    }
  }

  static func sign(header: String, payload: String) -> [UInt8] {
    let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
    return Array((input + "." + Base64URL.encode(try! key.sign(Array(input.utf8)))).utf8)
  }

  static let headers = [
    #"{"alg":"HS256","typ":"JWT"}"#, #"{"alg":"HS256","kid":"k1"}"#, #"{"alg":"none"}"#, #"{"alg":"RS256"}"#,
  ]
  static let payloads = [
    #"{"sub":"alice","exp":1767226200,"rooms":["team-*","lobby"]}"#,
    #"{"sub":"bob","exp":1767226200,"nbf":1767225000,"iat":1767225000,"aud":"x","iss":"y"}"#,
    #"{"sub":"ü\u00e9","exp":1767226200.5,"rooms":["*"],"extra":{"a":[1,2,{"b":null}]}}"#,
    #"{"sub":"c","exp":1767226200,"rooms":[]}"#,
  ]

  /// Mutates token text: base64url-alphabet substitutions, dots, cuts, duplications.
  static func mutate(_ input: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ".utf8)
    var bytes = input
    for _ in 0..<Int.random(in: 1...4, using: &random) {
      guard !bytes.isEmpty else { break }
      let index = Int.random(in: 0..<bytes.count, using: &random)
      switch Int.random(in: 0...5, using: &random) {
      case 0: bytes[index] = alphabet.randomElement(using: &random)!
      case 1: bytes.remove(at: index)
      case 2: bytes.insert(alphabet.randomElement(using: &random)!, at: index)
      case 3: bytes[index] = UInt8.random(in: 0...255, using: &random)
      case 4: bytes.removeLast(Int.random(in: 0...(bytes.count - index), using: &random))
      default: bytes.insert(contentsOf: bytes[index...].prefix(12), at: index)
      }
    }
    return bytes
  }

  /// Mutates JSON text (keeping it often valid enough to reach the claim checks).
  static func mutateJSON(_ text: String, _ random: inout SeededGenerator) -> String {
    let pieces = [
      "\"", ",", ":", "{", "}", "[", "]", "\\u0000", "\\ud800", "1e999", "-0", "null", "\"sub\":", "\"exp\":",
      "ü", " ",
    ]
    var scalars = Array(text.unicodeScalars)
    for _ in 0..<Int.random(in: 1...3, using: &random) {
      guard !scalars.isEmpty else { break }
      let index = Int.random(in: 0..<scalars.count, using: &random)
      if Bool.random(using: &random) {
        scalars.insert(contentsOf: pieces.randomElement(using: &random)!.unicodeScalars, at: index)
      } else {
        scalars.remove(at: index)
      }
    }
    var out = String.UnicodeScalarView()
    out.append(contentsOf: scalars)
    return String(out)
  }

  @Test func randomBytesNeverCrash() {
    var random = SeededGenerator(seed: 7519)
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.".utf8)
    var refused = 0
    for _ in 0..<20_000 {
      let count = Int.random(in: 0...120, using: &random)
      let bytes = (0..<count).map { _ in
        Bool.random(using: &random)
          ? alphabet.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
      }
      if Self.check(bytes) == .refused { refused += 1 }
    }
    #expect(refused > 19_000)
  }

  @Test func mutatedTokensNeverCrashAndNeverVerify() {
    var random = SeededGenerator(seed: 7515)
    var seeds: [[UInt8]] = []
    for header in Self.headers {
      for payload in Self.payloads { seeds.append(Self.sign(header: header, payload: payload)) }
    }
    var unchanged = 0
    for iteration in 0..<20_000 {
      let seed = seeds[iteration % seeds.count]
      let bytes = Self.mutate(seed, &random)
      // Strict base64url gives every byte string one encoding, so any change to the text
      // changes the signing input or the signature: only a mutation that changed nothing
      // (a character replaced by itself, an empty cut) may still verify.
      if Self.check(bytes) == .verified {
        #expect(bytes == seed)
        unchanged += 1
      }
    }
    #expect(unchanged < 500)
  }

  @Test func mutatedClaimsThatAreSignedReachTheClaimChecks() {
    var random = SeededGenerator(seed: 7518)
    var outcomes: [Outcome: Int] = [:]
    for iteration in 0..<10_000 {
      let header = Self.headers[iteration % 2]
      let payload = Self.mutateJSON(Self.payloads[iteration % Self.payloads.count], &random)
      outcomes[Self.check(Self.sign(header: header, payload: payload)), default: 0] += 1
    }
    #expect(outcomes[.verified, default: 0] > 100)
    #expect(outcomes[.decoded, default: 0] > 100)
    #expect(outcomes[.refused, default: 0] > 100)
  }

  @Test func committedFuzzCorpusReplaysCleanly() throws {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fuzz/token/corpus")
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    #expect(files.count >= 20)
    var verified = 0
    for file in files {
      var bytes = Array(
        try #require(FileManager.default.contents(atPath: directory.appendingPathComponent(file).path)))
      // The fuzzer's second form: header and payload JSON, which it signs itself.
      if bytes.first == UInt8(ascii: "{") {
        let text = String(decoding: bytes, as: UTF8.self)
        let newline = text.firstIndex(of: "\n") ?? text.endIndex
        let payload = newline < text.endIndex ? String(text[text.index(after: newline)...]) : ""
        bytes = Self.sign(header: String(text[..<newline]), payload: payload)
      }
      // The fuzzer's third form: a PEM key file, read or refused.
      if bytes.starts(with: "-----BEGIN".utf8) {
        do {
          #expect(try TokenKey(pem: bytes).algorithm != .hs256)
        } catch {
          #expect(error == .invalidKey)
        }
        continue
      }
      if Self.check(bytes) == .verified { verified += 1 }
    }
    #expect(verified >= 4)
  }
}
