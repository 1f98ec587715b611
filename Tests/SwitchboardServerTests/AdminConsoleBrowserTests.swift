import Foundation
import SwitchboardTestSupport
import Testing

private let browserPeers =
  Executables.switchboard != nil && PeerScriptTests.python != nil && PeerScriptTests.chromium != nil

/// The admin console (`/admin`) in headless Chromium against the real binary
/// (Tests/peers/browser_admin.py): the login's refusal and slow-down, a room that a
/// WebSocket, a TCP line and a UDP client join and leave, its live messages, publishing and
/// disconnecting from the page, a cross-site POST refused, no request outside the server.
@Suite(
  .onTestThreads,
  .enabled(ifAvailable: browserPeers, "needs the switchboard binary, chromium and python3 with websockets"))
struct AdminConsoleBrowserTests {
  /// Screenshots of the overview and a room's page at 1280×800 and 390×844, light and dark,
  /// go to `$TMPDIR/browser_admin-PID/` (docs/images/admin-*.png are chosen from them).
  @Test func chromiumDrivesTheAdminConsoleAgainstEveryTransport() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("browser_admin-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let passwordFile = directory.appendingPathComponent("admin-password").path
    try Data("browser-admin-\(UInt64.random(in: 0...UInt64.max))\n".utf8).write(
      to: URL(fileURLWithPath: passwordFile))
    let server = try await ServeProcess.start(["--ephemeral", "--admin-password-file", passwordFile])
    defer { server.signal(SIGTERM) }
    let peer = try ChildProcess(
      PeerScriptTests.python!,
      [
        "\(PeerScriptTests.peersDirectory)/browser_admin.py", "\(server.http)", "\(server.tcp)",
        "\(server.udp)",
        "--password-file", passwordFile, "--timeout", "150", "--screenshots", directory.path,
      ])
    let status = try await peer.waitForExit(timeout: .seconds(180))
    #expect(status == 0, "browser_admin.py failed: \(peer.stdout.suffix(800)) \(peer.stderr.suffix(800))")
  }
}
