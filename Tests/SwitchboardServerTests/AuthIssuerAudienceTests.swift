import Foundation
import SwitchboardAuth
import SwitchboardIO
import SwitchboardTestSupport
import Testing

/// `serve --auth-issuer` and `--auth-audience` against the real binary, with tokens minted
/// by `switchboard token --iss/--aud`.
@Suite(
  .onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "build the switchboard executable first"),
  .enabled(ifAvailable: TokenSupport.isAvailable, "needs a crypto library for tokens (TokenSupport)"))
struct AuthIssuerAudienceTests {
  let binary = Executables.switchboard ?? ""

  private func mint(_ secretFile: String, _ extra: [String]) async throws -> String {
    let mint = try ChildProcess(
      binary, ["token", "--secret-file", secretFile, "--sub", "bot", "--ttl", "10m"] + extra)
    #expect(try await mint.waitForExit() == 0, "\(mint.stderr)")
    return mint.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The first line the server answers to `auth:TOKEN`.
  private func answer(_ token: String, port: Int) throws -> String {
    let c = try LineClient(SocketAddress(host: "127.0.0.1", port: port))
    try c.sendLine("auth:" + token)
    return try c.readLine()
  }

  @Test func tokensAreCheckedAgainstTheConfiguredIssuerAndAudience() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "issaud-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let secretFile = directory.appendingPathComponent("secret").path
    try Data(TestTokens.secret).write(to: URL(fileURLWithPath: secretFile))
    let server = try await ServeProcess.start(["--ephemeral", "--auth-secret-file", secretFile, "--auth-issuer", "https://issuer.example", "--auth-audience", "switchboard-chat"], listeners: [.tcp, .http])
    defer { server.stop() }
    let tcp = server.tcp

    let good = try await mint(secretFile, ["--iss", "https://issuer.example", "--aud", "switchboard-chat"])
    #expect(try answer(good, port: tcp) == "* authenticated as bot")
    let otherIssuer = try await mint(
      secretFile, ["--iss", "https://other.example", "--aud", "switchboard-chat"])
    #expect(try answer(otherIssuer, port: tcp) == "! token issuer mismatch")
    let noIssuer = try await mint(secretFile, ["--aud", "switchboard-chat"])
    #expect(try answer(noIssuer, port: tcp) == "! token issuer mismatch")
    let otherAudience = try await mint(
      secretFile, ["--iss", "https://issuer.example", "--aud", "another-app"])
    #expect(try answer(otherAudience, port: tcp) == "! token audience mismatch")
    let noAudience = try await mint(secretFile, ["--iss", "https://issuer.example"])
    #expect(try answer(noAudience, port: tcp) == "! token audience mismatch")
  }

  @Test func issuerAudienceAndTimeoutNeedAKey() async throws {
    for flag in ["--auth-issuer", "--auth-audience", "--auth-timeout", "--token-refresh-lead"] {
      let serve = try ChildProcess(binary, ["serve", "--no-advertise", flag, "5"])
      #expect(try await serve.waitForExit() == 64)
      #expect(serve.stderr.contains("\(flag) needs --auth-secret"), "\(serve.stderr)")
    }
  }
}
