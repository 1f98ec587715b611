import Foundation
import SwitchboardTestSupport
import Testing

private let browserPeers =
  Executables.switchboard != nil && PeerScriptTests.python != nil && PeerScriptTests.chromium != nil

/// The web page when the server ends its connection for good, in headless Chromium against
/// the real binary: a member removed by the app's backend (`POST /api/disconnect`, close
/// 4001) and a token that runs out (`token_expiring`, then close 1008). Each time the page
/// says why and does not connect again (Tests/peers/browser_disconnect.py and
/// browser_token_expiry.py).
@Suite(.onTestThreads, .enabled(ifAvailable: browserPeers, "needs the switchboard binary, chromium and python3 with websockets"))
struct BrowserServerCloseTests {
  static let apiKey = "browser-close-key-0123456789abcdef"

  private func run(_ args: [String]) async throws {
    let peer = try ChildProcess(PeerScriptTests.python!, args)
    let status = try await peer.waitForExit(timeout: .seconds(120))
    #expect(status == 0, "\(args.first ?? "peer") failed: \(peer.stdout.suffix(800)) \(peer.stderr.suffix(800))")
  }

  /// curl posts `/api/disconnect` for the page's user: the page shows "disconnected by the
  /// server: account closed", stays refused, opens no second WebSocket and never joins
  /// again; screenshots of it at 1280×800 and 390×844 go to the temporary directory.
  @Test(.enabled(ifAvailable: Executables.tool("curl") != nil, "needs curl"))
  func chromiumShowsWhyTheServerAPIDisconnectedThePageAndStaysOut() async throws {
    let server = try await ServeProcess.start(["--ephemeral", "--api-key", Self.apiKey])
    defer { server.signal(SIGTERM) }
    let shots = FileManager.default.temporaryDirectory.appendingPathComponent("browser_disconnect-\(getpid())").path
    try await run([
      "\(PeerScriptTests.peersDirectory)/browser_disconnect.py", "\(server.http)", "\(server.tcp)", "--api-key",
      Self.apiKey, "--timeout", "90", "--screenshots", shots,
    ])
  }

  /// A page opened with an 8-second token on a server with a 3-second refresh lead: it
  /// shows the `token_expiring` notice ("this page cannot renew it"), then at expiry the
  /// close 1008 "token expired" as "this page cannot renew its token", and stays refused.
  @Test func chromiumShowsThatThePageCannotRenewItsExpiringToken() async throws {
    let secretFile = NSTemporaryDirectory() + "sb-browser-expiry-\(getpid()).secret"
    try Data(TestTokens.secret).write(to: URL(fileURLWithPath: secretFile))
    defer { try? FileManager.default.removeItem(atPath: secretFile) }
    let server = try await ServeProcess.start([
      "--ephemeral", "--auth-secret-file", secretFile, "--auth-leeway", "0", "--token-refresh-lead", "3",
    ])
    defer { server.signal(SIGTERM) }
    try await run([
      "\(PeerScriptTests.peersDirectory)/browser_token_expiry.py", "\(server.http)", "\(server.tcp)",
      "--secret-file", secretFile, "--ttl", "8", "--timeout", "90",
    ])
  }
}
