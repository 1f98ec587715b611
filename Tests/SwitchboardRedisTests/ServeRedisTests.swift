import Foundation
import SwitchboardTestSupport
import Testing

/// `switchboard serve --redis` as a process.
@Suite(.onTestThreads, .enabled(ifAvailable: Executables.switchboard != nil, "switchboard binary not built"))
struct ServeRedisTests {
  private var binary: String { Executables.switchboard! }

  @Test func anUnreachableRedisAtStartExitsOneWithAClearMessage() throws {
    let nobody = try RefusingPort()
    let port = nobody.port
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
