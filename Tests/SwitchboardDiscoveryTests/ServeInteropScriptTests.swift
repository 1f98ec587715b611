import Foundation
import SwitchboardTestSupport
import Testing

/// `scripts/discovery/interop-serve.sh`: `switchboard serve` advertising itself, seen by
/// avahi, python-zeroconf and `switchboard browse` in network namespaces the script creates
/// (and deletes). Runs only with `SWITCHBOARD_INTEROP=1`, as root where `ip netns` works and
/// the binary is built (``InteropEnvironment``).
@Suite(
  .enabled(ifAvailable: InteropEnvironment.skipReason == nil, Comment(rawValue: InteropEnvironment.skipReason ?? "")),
  .onTestThreads)
struct ServeInteropScriptTests {
  @Test(.timeLimit(.minutes(3)))
  func avahiZeroconfAndBrowseSeeServeAndItsGoodbyes() throws {
    let (status, text) = try InteropEnvironment.runScript("interop-serve.sh")
    #expect(status == 0, "\(text)")
    for line in ["PASS goodbye", "PASS --no-advertise", "PASS --udp-port 0"] {
      #expect(text.contains(line), "\(text)")
    }
  }
}

extension InteropEnvironment {
  /// Runs `scripts/discovery/NAME` with the binary and returns its exit status and output;
  /// any `FAIL ` line is recorded as an issue.
  static func runScript(_ name: String, timeout: Duration = .seconds(170)) throws -> (Int32, String) {
    let script = try ChildProcess(root.appendingPathComponent("scripts/discovery/\(name)").path, [binary!])
    defer { script.stop() }
    let status = try script.waitForExit(timeout: timeout)
    let text = script.stdout + script.stderr
    #expect(!text.contains("FAIL "), "\(text)")
    return (status, text)
  }
}
