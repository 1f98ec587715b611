import Foundation
import SwitchboardTestSupport
import Testing

/// `scripts/discovery/interop-system.sh`: the system DNS-SD backend (`--mdns system` and
/// `auto`) against avahi-daemon in network namespaces the script creates (and deletes). Runs
/// only where ``InteropEnvironment`` allows it (`SWITCHBOARD_INTEROP=1`, root, `ip netns`).
@Suite(
  .enabled(if: InteropEnvironment.skipReason == nil, Comment(rawValue: InteropEnvironment.skipReason ?? "")),
  .onTestThreads)
struct InteropSystemScriptTests {
  @Test(.timeLimit(.minutes(3)))
  func avahiSeesTheSystemBackendAndItSeesAvahiAndAutoPicksEither() throws {
    let text = try InteropEnvironment.runScript("scripts/discovery/interop-system.sh")
    #expect(text.contains("PASS goodbye"), "\(text)")
    #expect(text.contains("PASS --mdns auto: the system backend"), "\(text)")
  }
}

extension InteropEnvironment {
  /// Runs one of the interop scripts (path from the repository root) on the binary, for at
  /// most 170 s, expects exit 0 and no `FAIL` line, and returns what it printed.
  static func runScript(_ path: String) throws -> String {
    let script = try ChildProcess(root.appendingPathComponent(path).path, [binary!])
    defer { script.stop() }
    let status = try script.waitForExit(timeout: .seconds(170))
    let text = script.stdout + script.stderr
    #expect(status == 0, "\(text)")
    #expect(!text.contains("FAIL "), "\(text)")
    return text
  }
}
