import Foundation
import SwitchboardAuth
import SwitchboardTestSupport
import Testing

/// `switchboard token`, the real binary: what it mints verifies here and with PyJWT,
/// `--verify` prints claims or the server's answer, bad usage exits 64.
@Suite(
  .enabled(ifAvailable: AuthTestEnvironment.binary != nil, "build the switchboard executable first"), .onTestThreads,
  .enabled(ifAvailable: TokenSupport.isAvailable, "needs a crypto library for tokens (TokenSupport)"))
struct TokenCommandTests {
  struct Result {
    let status: Int32
    let stdout: String
    let stderr: String
  }

  func token(_ arguments: [String]) throws -> Result {
    let child = try ChildProcess(AuthTestEnvironment.binary!, ["token"] + arguments)
    defer { child.stop() }
    let status = try child.waitForExit(timeout: .seconds(30))
    return Result(status: status, stdout: child.stdout, stderr: child.stderr)
  }

  let secret = String(decoding: testSecret, as: UTF8.self)

  @Test func aMintedTokenCarriesTheFlags() throws {
    let minted = try token([
      "--sub", "alice", "--rooms", "team-*, lobby", "--ttl", "2h", "--nbf", "-5m", "--kid", "k1", "--secret",
      secret,
      "--now", "\(testNow)",
    ])
    #expect(minted.status == 0, "\(minted.stderr)")
    let text = minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    let verified = try TokenVerifier(keys: [try TokenKey(secret: testSecret, id: "k1")]).verify(
      text, now: testNow)
    #expect(verified.header.keyID == "k1")
    #expect(verified.claims.subject == "alice" && verified.claims.rooms.map(\.text) == ["team-*", "lobby"])
    #expect(verified.claims.expiresAt == testNow + 7_200 && verified.claims.notBefore == testNow - 300)
    #expect(verified.claims.issuedAt == testNow)
    // The default: every room, one hour.
    let plain = try token(["--sub", "bob", "--secret", secret, "--now", "\(testNow)"])
    let claims = try TokenVerifier(keys: [try TokenKey(secret: testSecret)])
      .verify(plain.stdout.trimmingCharacters(in: .whitespacesAndNewlines), now: testNow).claims
    #expect(claims.rooms.map(\.text) == ["*"] && claims.expiresAt == testNow + 3_600)
  }

  @Test func roomsWithCapabilitiesMintTheObjectFormAndPlainRoomsTheList() throws {
    let minted = try token([
      "--sub", "alice", "--rooms", "news=subscribe,team-*", "--secret", secret, "--now", "\(testNow)",
    ])
    #expect(minted.status == 0, "\(minted.stderr)")
    let text = minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    let verified = try token(["--verify", text, "--secret", secret, "--now", "\(testNow)"])
    #expect(
      verified.stdout.contains(
        #""rooms":{"news":["subscribe"],"team-*":["subscribe","publish","presence","history"]}"#),
      "\(verified.stdout)")
    let claims = try TokenVerifier(keys: [try TokenKey(secret: testSecret)]).verify(text, now: testNow).claims
    #expect(claims.capabilities(in: "news") == .subscribe && claims.capabilities(in: "team-a") == .all)
    // The old syntax means what it meant: the list form, every capability.
    let plain = try token(["--sub", "bob", "--rooms", "news,team-*", "--secret", secret, "--now", "\(testNow)"])
    let old = try token([
      "--verify", plain.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "--secret", secret, "--now",
      "\(testNow)",
    ])
    #expect(old.stdout.contains(#""rooms":["news","team-*"]"#), "\(old.stdout)")
  }

  @Test func verifyPrintsTheClaimsOrTheAnswer() throws {
    let minted = try token(["--sub", "alice", "--ttl", "60", "--secret", secret, "--now", "\(testNow)"])
    let text = minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    let good = try token(["--verify", text, "--secret", secret, "--now", "\(testNow)"])
    #expect(good.status == 0)
    #expect(good.stdout == #"{"exp":\#(testNow + 60),"iat":\#(testNow),"rooms":["*"],"sub":"alice"}"# + "\n")
    let late = try token(["--verify", text, "--secret", secret, "--now", "\(testNow + 120)"])
    #expect(late.status == 1 && late.stderr.contains("token expired"), "\(late.stderr)")
    let wrong = try token([
      "--verify", text, "--secret", String(repeating: "z", count: 32), "--now", "\(testNow)",
    ])
    #expect(wrong.status == 1 && wrong.stderr.contains("token signature invalid"), "\(wrong.stderr)")
  }

  @Test func keyFilesSignAndVerify() throws {
    let keys = try #require(TestKeys.shared)
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let secretFile = try scratch.write("secret", testSecret + [UInt8(ascii: "\n")])
    let fromFile = try token(["--sub", "f", "--secret-file", secretFile, "--now", "\(testNow)"])
    #expect(fromFile.status == 0, "\(fromFile.stderr)")
    _ = try TokenVerifier(keys: [try TokenKey(secret: testSecret)])
      .verify(fromFile.stdout.trimmingCharacters(in: .whitespacesAndNewlines), now: testNow)
    for (privatePEM, publicPEM) in [(keys.rsaPrivate, keys.rsaPublic), (keys.ecPrivate, keys.ecPublic)] {
      let privatePath = try scratch.write("key.pem", privatePEM)
      let publicPath = try scratch.write("pub.pem", publicPEM)
      let minted = try token(["--sub", "k", "--private-key", privatePath, "--now", "\(testNow)"])
      #expect(minted.status == 0, "\(minted.stderr)")
      let text = minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
      let checked = try token(["--verify", text, "--public-key", publicPath, "--now", "\(testNow)"])
      #expect(checked.status == 0 && checked.stdout.contains(#""sub":"k""#), "\(checked.stderr)")
    }
    let unusable = try token(["--sub", "k", "--private-key", try scratch.write("p384.pem", keys.p384Private)])
    #expect(unusable.status == 1 && unusable.stderr.contains("P-256"), "\(unusable.stderr)")
    let missing = try token([
      "--sub", "k", "--secret-file", scratch.url.appendingPathComponent("nothing").path,
    ])
    #expect(missing.status == 1)
  }

  @Test(
    .enabled(ifAvailable: AuthTestEnvironment.hasPyJWT, "needs python3 with PyJWT and cryptography"),
    .timeLimit(.minutes(2)))
  func mintedTokensVerifyWithPyJWT() throws {
    let keys = try #require(TestKeys.shared)
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let secretFile = try scratch.write("secret", testSecret)
    let files = [
      ("HS256", secretFile, secretFile),
      ("RS256", try scratch.write("rsa.key", keys.rsaPrivate), try scratch.write("rsa.pub", keys.rsaPublic)),
      ("ES256", try scratch.write("ec.key", keys.ecPrivate), try scratch.write("ec.pub", keys.ecPublic)),
    ]
    var jobs: [PyJWT.Job] = []
    for (alg, signing, verifying) in files {
      let flag = alg == "HS256" ? "--secret-file" : "--private-key"
      let minted = try token(["--sub", "erin", "--rooms", "ops", flag, signing])
      #expect(minted.status == 0, "\(minted.stderr)")
      jobs.append(
        .verify(
          alg: alg, key: verifying, token: minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }
    for (index, result) in try PyJWT.run(jobs, in: scratch).enumerated() {
      #expect(
        result.hasPrefix("ok {") && result.contains(#""sub": "erin""#)
          && result.contains(#""rooms": ["ops"]"#),
        "\(files[index].0): \(result)")
    }
  }

  @Test(arguments: [
    ["--secret", "0123456789abcdef0123456789abcdef"], ["--sub", "a"], ["--sub", "a", "--secret", "short"],
    ["--sub", "a", "--secret", "0123456789abcdef0123456789abcdef", "--ttl", "soon"],
    ["--sub", "a", "--secret", "0123456789abcdef0123456789abcdef", "--rooms", "a b"],
    ["--sub", "a", "--secret", "0123456789abcdef0123456789abcdef", "--rooms", "news=fly"],
    ["--sub", "a", "--secret", "0123456789abcdef0123456789abcdef", "--rooms", "news="],
    ["--sub", "a", "--secret", "0123456789abcdef0123456789abcdef", "--secret-file", "/dev/null"],
    ["--sub", "a", "--public-key", "x.pem"], ["--sub", "a", "--bogus"], ["extra"],
  ])
  func badUsageExits64(_ arguments: [String]) throws {
    let result = try token(arguments)
    #expect(result.status == 64, "\(arguments): \(result.stderr)")
  }

  @Test func helpExplainsTheCommand() throws {
    let result = try token(["--help"])
    #expect(
      result.status == 0 && result.stdout.contains("--private-key PEM") && result.stdout.contains("--verify"))
  }
}
