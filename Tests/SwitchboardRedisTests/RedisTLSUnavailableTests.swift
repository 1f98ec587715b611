import Foundation
import SwitchboardIO
import SwitchboardRedis
import SwitchboardTLS
import SwitchboardTestSupport
import Testing

/// `rediss://` where TLS is unavailable (Apple platforms today; Linux with
/// `SWITCHBOARD_WITHOUT_OPENSSL=1`): the connect fails with the reason, naming the platform,
/// and `serve --redis rediss://…` refuses at startup.
@Suite(.onTestThreads, .enabled(ifAvailable: !TLSSupport.isAvailable, "only where TLS is unavailable"))
struct RedisTLSUnavailableTests {
  static var binary: String? { ProcessInfo.processInfo.environment["SWITCHBOARD_BIN"] }

  @Test func aRedissConnectFailsNamingThePlatform() async throws {
    try await withLoop { loop in
      let error = await #expect(throws: RedisError.self) {
        _ = try await RedisClient.connect(
          configuration: .test(try RedisURL("rediss://127.0.0.1:9")), on: loop)
      }
      #expect(error?.kind == .connectFailed, "\(String(describing: error))")
      #expect(error?.message.contains("TLS unavailable") == true, "\(String(describing: error))")
      #expect(error?.message.contains(BuildPlatform.name) == true, "\(String(describing: error))")
    }
  }

  @Test(.enabled(ifAvailable: Self.binary != nil, "SWITCHBOARD_BIN is not set"))
  func serveWithARedissURLRefusesAtStartup() async throws {
    let process = try ChildProcess(
      Self.binary!,
      [
        "serve", "--host", "127.0.0.1", "--tcp-port", "0", "--udp-port", "0", "--http-port", "0",
        "--no-advertise", "--redis", "rediss://127.0.0.1:9",
      ])
    defer { process.stop() }
    #expect(try await process.waitForExit() == 64)
    #expect(process.stderr.contains("--redis: rediss:// TLS needs OpenSSL"), "\(process.stderr)")
    #expect(process.stderr.contains(BuildPlatform.name), "\(process.stderr)")
    #expect(!process.stdout.contains("Switchboard is running"))
  }
}
