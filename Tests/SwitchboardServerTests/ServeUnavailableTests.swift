import Foundation
import SwitchboardAuth
import SwitchboardIO
import SwitchboardTLS
import SwitchboardTestSupport
import Testing

/// The real binary where a feature has no implementation (Apple platforms today; Linux built
/// with `SWITCHBOARD_WITHOUT_OPENSSL=1`): it refuses at startup, naming the platform, exits
/// non-zero and never prints its banner — nothing half-started, nothing listening.
@Suite(.onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "needs the switchboard binary"))
struct ServeUnavailableTests {
  let binary = Executables.switchboard ?? ""

  /// `serve` with `flags` on port-0 listeners: its exit status and stderr.
  private func refusedServe(_ flags: [String]) async throws -> (Int32, String) {
    let process = try ChildProcess(
      binary,
      [
        "serve", "--host", "127.0.0.1", "--tcp-port", "0", "--udp-port", "0", "--http-port", "0",
        "--no-advertise", "--ephemeral",
      ] + flags)
    defer { process.stop() }
    let status = try await process.waitForExit()
    #expect(!process.stdout.contains("Switchboard is running"), "the banner was printed")
    return (status, process.stderr)
  }

  /// The files are never read: the refusal comes first, and says why instead of "cannot load".
  @Test(.enabled(ifAvailable: !TLSSupport.isAvailable, "only where TLS is unavailable"))
  func tlsFlagsStopServeAtStartupNamingThePlatform() async throws {
    let (status, stderr) = try await refusedServe([
      "--tls-cert", "/nonexistent/server.pem", "--tls-key", "/nonexistent/server.key",
    ])
    #expect(status == 1)
    #expect(stderr.contains("TLS unavailable"), "\(stderr)")
    #expect(
      stderr.contains("this build of Switchboard on \(BuildPlatform.name) does not include"), "\(stderr)")
  }

  @Test(.enabled(ifAvailable: !TokenSupport.isAvailable, "only where token signatures are unavailable"))
  func anAuthSecretStopsServeAtStartupNamingThePlatform() async throws {
    let (status, stderr) = try await refusedServe(["--auth-secret", String(repeating: "s", count: 32)])
    #expect(status != 0)
    #expect(stderr.contains("--auth-secret: token signatures need OpenSSL or CryptoKit"), "\(stderr)")
    #expect(stderr.contains(BuildPlatform.name), "\(stderr)")
  }

  @Test(.enabled(ifAvailable: !TokenSupport.isAvailable, "only where token signatures are unavailable"))
  func theTokenCommandRefusesNamingThePlatform() async throws {
    let process = try ChildProcess(
      binary, ["token", "--sub", "ann", "--secret", String(repeating: "s", count: 32)])
    defer { process.stop() }
    #expect(try await process.waitForExit() == 1)
    #expect(process.stderr.contains("this build on \(BuildPlatform.name) has neither"), "\(process.stderr)")
    #expect(process.stdout.isEmpty)
  }
}
