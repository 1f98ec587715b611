import Foundation
import SwitchboardAuth
import SwitchboardServer
import SwitchboardTestSupport
import Testing

/// `--auth-timeout`: with tokens on, a line client has that long to send its `auth:` line.
@Suite(
  .onTestThreads,
  .enabled(ifAvailable: TokenSupport.isAvailable, "needs a crypto library for tokens (TokenSupport)"))
struct AuthTimeoutTests {
  @Test func aLineClientThatSaysNothingIsClosedAtTheAuthTimeoutAndCounted() async throws {
    try await withServer({
      $0.tokenVerifier = TestTokens.verifier
      $0.limits.authTimeout = .milliseconds(500)
    }) { server in
      let start = ContinuousClock.now
      let silent = try LineClient(server.tcpAddress!)
      try silent.expectLine("! authentication timed out (send auth:TOKEN first)", timeout: .seconds(10))
      try silent.expectClosed()
      #expect(ContinuousClock.now - start >= .milliseconds(450))
      #expect(server.metrics.limits.authTimeouts.load(ordering: .relaxed) == 1)
      // Empty lines are no token either.
      let blank = try LineClient(server.tcpAddress!)
      try blank.sendLine("")
      try blank.expectLine("! authentication timed out (send auth:TOKEN first)", timeout: .seconds(10))
      try blank.expectClosed()
      #expect(server.metrics.limits.authTimeouts.load(ordering: .relaxed) == 2)
    }
  }

  @Test func aClientThatAuthenticatesInTimeStaysPastTheTimeout() async throws {
    try await withServer({
      $0.tokenVerifier = TestTokens.verifier
      $0.limits.authTimeout = .milliseconds(300)
    }) { server in
      let c = try LineClient(server.tcpAddress!)
      try c.sendLine("auth:" + TestTokens.token())
      try c.expectLine("* authenticated as alice")
      // Past the deadline (the silent client below is closed by it), still served.
      let silent = try LineClient(server.tcpAddress!)
      try silent.expectLine("! authentication timed out (send auth:TOKEN first)")
      try c.sendLine("/who")
      try c.expectLine { $0.hasPrefix("* in lobby (1): alice") }
      #expect(server.metrics.limits.authTimeouts.load(ordering: .relaxed) == 1)
    }
  }
}
