import Foundation
import SwitchboardTestSupport
import Testing

/// The binary under test, from `SWITCHBOARD_BIN`.
private let switchboardBinary = ProcessInfo.processInfo.environment["SWITCHBOARD_BIN"]

/// `switchboard serve --redis` as a process (the binary from `SWITCHBOARD_BIN`).
@Suite(.onTestThreads, .enabled(ifAvailable: switchboardBinary != nil, "SWITCHBOARD_BIN is not set"))
struct ServeRedisTests {
  private var binary: String { switchboardBinary! }

  @Test func anUnreachableRedisAtStartExitsOneWithAClearMessage() throws {
    let port = try freePorts(1)[0]
    let serve = try ChildProcess(
      binary,
      [
        "serve", "--redis", "redis://127.0.0.1:\(port)", "--tcp-port", "0", "--udp-port", "0", "--http-port",
        "0",
        "--no-advertise", "--ephemeral",
      ])
    defer { serve.stop() }
    #expect(try serve.waitForExit(timeout: .seconds(20)) == 1)
    #expect(serve.stderr.contains("cannot reach Redis at redis://127.0.0.1:\(port)"), "\(serve.stderr)")
  }

  @Test func aURLThatIsNotRedisIsAUsageError() throws {
    let serve = try ChildProcess(binary, ["serve", "--redis", "http://example.org", "--no-advertise"])
    defer { serve.stop() }
    #expect(try serve.waitForExit() == 64)
    #expect(serve.stderr.contains("--redis:"), "\(serve.stderr)")
  }
}
