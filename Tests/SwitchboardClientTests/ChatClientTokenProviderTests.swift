import Foundation
import SwitchboardAuth
import SwitchboardServer
import SwitchboardTestSupport
import Synchronization
import Testing

@testable import SwitchboardClient

/// ``ChatClient/Configuration/tokenProvider`` and `chat --token-command` (docs/CLIENT.md,
/// "Tokens that expire"): a token per connect, a fresh one on each `token_expiring` notice,
/// and a connection that outlives its first token. Ten-second tokens, no leeway and a 5 s
/// refresh lead (5 s to answer a notice, which a loaded machine needs), so each test takes seconds.
@Suite(
  .onTestThreads,
  .enabled(ifAvailable: TokenSupport.isAvailable, "needs a crypto library for tokens (TokenSupport)"))
struct ChatClientTokenProviderTests {
  static let secret = Array("client-token-provider-tests-secret-0123".utf8)
  static let key = try! TokenKey(secret: secret)

  static func token(sub: String = "alice", ttl: Int64) -> String {
    let claims = TokenClaims(
      subject: sub, rooms: [RoomPattern("*")!], expiresAt: TokenVerifier.wallClockSeconds() + ttl)
    return try! TokenSigner.sign(claims, with: key)
  }

  private func refreshingServer(lead: Duration = .seconds(5)) throws -> ChatServer {
    try startServer {
      $0.tokenVerifier = TokenVerifier(keys: [Self.key], leeway: 0)
      $0.tokenRefreshLead = lead
    }
  }

  /// A configuration whose provider counts its calls in `calls` and mints `ttl`-second tokens.
  private func counting(_ calls: ProviderCalls, ttl: Int64) -> ChatClient.Configuration {
    var configuration = ChatClient.Configuration.forTesting
    configuration.tokenProvider = {
      _ = calls.next()
      return Self.token(ttl: ttl)
    }
    return configuration
  }

  @Test(arguments: ["ws", "tcp"])
  func theProviderIsAskedOnConnectAndOnEachNoticeAndTheConnectionOutlivesItsFirstToken(scheme: String)
    async throws
  {
    let server = try refreshingServer()
    defer { server.shutdown() }
    let start = TokenVerifier.wallClockSeconds()
    let calls = ProviderCalls()
    // Each token lasts 10 s; the notice leaves 5 s to answer (a loaded machine needs them).
    let configuration = counting(calls, ttl: 10)
    let url = scheme == "ws" ? wsURL(server) : tcpURL(server)
    let alice = try ChatProbe(url, name: "alice", configuration: configuration)
    try await alice.waitConnected()
    // One connect and two refreshes, past the first token's end (start + 10 at the latest).
    try await eventually(timeout: .seconds(40), "three tokens asked for") {
      calls.count >= 3
    }
    try await eventually(timeout: .seconds(15)) { TokenVerifier.wallClockSeconds() >= start + 11 }
    #expect(alice.connectedCount == 1, "\(alice.events.suffix(8))")
    try await alice.client.send("after two refreshes")
    try await eventually {
      server.hub.history(room: "lobby", last: 5).map(\.text).contains("after two refreshes")
    }
    #expect(alice.connectedCount == 1)
    await alice.stop()
  }

  /// The same at the scale an app sees: 75-second tokens and a 10-second lead; after two
  /// refreshes the one connection is still there and speaking two minutes past its first
  /// token's end. (About 3.5 minutes; it runs beside the other suites.)
  @Test func aConnectionRefreshedTwiceOutlivesItsFirstTokenByMinutes() async throws {
    let server = try refreshingServer(lead: .seconds(10))
    defer { server.shutdown() }
    let start = TokenVerifier.wallClockSeconds()
    let calls = ProviderCalls()
    let alice = try ChatProbe(wsURL(server), name: "alice", configuration: counting(calls, ttl: 75))
    try await alice.waitConnected()
    // The first token ends by start + 75; two minutes past it, after the notices at about
    // 65 and 130 s, the third token (to about 205 s) holds the connection.
    try await eventually(timeout: .seconds(240), "two refreshes and two minutes past the first token") {
      calls.count >= 3 && TokenVerifier.wallClockSeconds() >= start + 75 + 120
    }
    #expect(alice.connectedCount == 1, "\(alice.events.suffix(8))")
    try await alice.client.send("two minutes past my first token")
    try await eventually {
      server.hub.history(room: "lobby", last: 5).map(\.text).contains("two minutes past my first token")
    }
    #expect(alice.connectedCount == 1)
    await alice.stop()
  }

  @Test(arguments: ["ws", "tcp"])
  func aConnectionClosedAtExpiryAfterAFailedRefreshReconnectsWithANewToken(scheme: String) async throws {
    let server = try refreshingServer()
    defer { server.shutdown() }
    struct BackendDown: Error {}
    let calls = ProviderCalls()
    var configuration = ChatClient.Configuration.forTesting
    configuration.tokenProvider = {
      let n = calls.next()
      // The refresh (second call) fails: the server closes at expiry; the reconnect asks again.
      if n == 2 { throw BackendDown() }
      return Self.token(ttl: n == 1 ? 10 : 600)
    }
    let url = scheme == "ws" ? wsURL(server) : tcpURL(server)
    let alice = try ChatProbe(url, name: "alice", configuration: configuration)
    try await alice.waitFor("the failed refresh") {
      if case .error(let e) = $0 { e == .tokenUnavailable } else { false }
    }
    try await alice.waitConnected(count: 2, timeout: .seconds(30))
    #expect(alice.client.refusal == nil)
    #expect(calls.count == 3)
    try await alice.client.send("back with a new token")
    try await eventually {
      server.hub.history(room: "lobby", last: 5).map(\.text).contains("back with a new token")
    }
    await alice.stop()
  }

  @Test func aProviderThatThrowsFailsTheConnectAttemptWithTokenUnavailable() async throws {
    let server = try refreshingServer()
    defer { server.shutdown() }
    struct NoToken: Error {}
    var configuration = ChatClient.Configuration.forTesting
    configuration.tokenProvider = { throw NoToken() }
    let probe = try ChatProbe(wsURL(server), name: "alice", configuration: configuration)
    let event = try await probe.waitFor("a tokenUnavailable error") {
      if case .error(let e) = $0 { e == .tokenUnavailable } else { false }
    }
    if case .error(let e) = event { #expect(e.description.hasPrefix("token provider failed: ")) }
    #expect(probe.connectedCount == 0)
    #expect(server.hub.counts.members == 0)
    await probe.stop()
  }

  @Test func theFixedTokenIsStillPresentedWithoutAProvider() async throws {
    let server = try refreshingServer()
    defer { server.shutdown() }
    var configuration = ChatClient.Configuration.forTesting
    configuration.token = Self.token(sub: "bob", ttl: 600)
    let bob = try ChatProbe(tcpURL(server), name: "bob", configuration: configuration)
    try await bob.waitConnected()
    try await eventually { server.hub.who(room: "lobby") == ["bob"] }
    await bob.stop()
  }
}

/// How many times a test's token provider was called.
final class ProviderCalls: Sendable {
  private let calls = Mutex(0)
  /// Counts a call; its number, from 1.
  func next() -> Int {
    calls.withLock { c in
      c += 1
      return c
    }
  }
  var count: Int { calls.withLock { $0 } }
}

/// `switchboard chat --token-command` against the real `serve`: the command runs on connect
/// and on each refresh, and a pipe chat stays connected past its first token.
@Suite(.onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "switchboard binary not built"))
struct ChatTokenCommandTests {
  private static func quoted(_ s: String) -> String {
    "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  @Test(arguments: ["ws", "tcp"])
  func aPipeChatWithATokenCommandOutlivesItsFirstToken(scheme: String) async throws {
    let directory = URL(fileURLWithPath: try temporaryDirectory())
    defer { try? FileManager.default.removeItem(at: directory) }
    let secret = directory.appendingPathComponent("secret").path
    let calls = directory.appendingPathComponent("calls").path
    try Data(String(repeating: "token-command-tests-secret-", count: 2).utf8).write(
      to: URL(fileURLWithPath: secret))
    let server = try await ServeProcess.start([
      "--ephemeral", "--auth-secret-file", secret, "--auth-leeway", "0", "--token-refresh-lead", "5",
    ])
    defer { server.stop() }
    let bin = Self.quoted(Executables.switchboard!)
    // Each run is counted (a line in `calls`) and mints a 10-second token: the notice leaves
    // 5 s to run the command (a loaded machine starts a process slowly).
    let command =
      "echo run >> \(Self.quoted(calls)) && \(bin) token --secret-file \(Self.quoted(secret)) --sub alice --ttl 10"
    let url = scheme == "ws" ? "ws://127.0.0.1:\(server.http)/" : "tcp://127.0.0.1:\(server.tcp)"
    let start = TokenVerifier.wallClockSeconds()
    let chat = try ChildProcess(
      Executables.switchboard!, ["chat", url, "--name", "alice", "--pipe", "--token-command", command])
    defer { chat.stop() }
    func runs() -> Int {
      ((try? String(contentsOfFile: calls, encoding: .utf8)) ?? "").split(separator: "\n").count
    }
    try await eventually(timeout: .seconds(40), "three runs of the token command; stderr: \(chat.stderr)") {
      runs() >= 3
    }
    try await eventually(timeout: .seconds(15)) { TokenVerifier.wallClockSeconds() >= start + 11 }
    #expect(chat.isRunning, "\(chat.stderr)")
    // A reader with a long token of its own sees what the chat sends now.
    let mint = try ChildProcess(
      Executables.switchboard!, ["token", "--secret-file", secret, "--sub", "reader", "--ttl", "10m"])
    #expect(try await mint.waitForExit() == 0)
    var configuration = ChatClient.Configuration.forTesting
    configuration.token = mint.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    let reader = try ChatProbe("ws://127.0.0.1:\(server.http)/", name: "reader", configuration: configuration)
    try await reader.waitReady()
    chat.write("still connected\n")
    let message = try await reader.waitForMessage("still connected")
    #expect(message.author == "alice")
    await reader.stop()
  }

  @Test func aFailingTokenCommandEndsAPipeChatWithItsReason() async throws {
    let server = try await ServeProcess.start([
      "--ephemeral", "--auth-secret", String(repeating: "s", count: 40),
    ])
    defer { server.stop() }
    let chat = try ChildProcess(
      Executables.switchboard!,
      [
        "chat", "ws://127.0.0.1:\(server.http)/", "--name", "alice", "--pipe", "--token-command",
        "echo no token for you >&2; exit 3",
      ])
    defer { chat.stop() }
    chat.write("hi\n")
    chat.closeInput()
    #expect(try await chat.waitForExit(timeout: .seconds(30)) == 1)
    #expect(
      chat.stderr.contains("token provider failed: --token-command exited with status 3: no token for you"),
      "\(chat.stderr)")
  }
}
