import Foundation
import SwitchboardTestSupport
import Testing

/// `scripts/discovery/interop-peer.sh`: two `switchboard peer`s in two network namespaces
/// exchange datagrams, a python-zeroconf stand-in for seed 003's iPhone exchanges datagrams
/// with them, avahi-browse sees them. Gated like ``InteropScriptTests`` (root, `ip netns`,
/// `SWITCHBOARD_INTEROP=1`).
@Suite(
  .enabled(if: InteropEnvironment.skipReason == nil, Comment(rawValue: InteropEnvironment.skipReason ?? "")),
  .onTestThreads)
struct PeerInteropScriptTests {
  @Test(.timeLimit(.minutes(3)))
  func twoPeersAndAZeroconfPhoneExchangeDatagramsAndAvahiSeesThem() throws {
    let (status, text) = try InteropEnvironment.run("scripts/discovery/interop-peer.sh")
    #expect(status == 0, "\(text)")
    #expect(!text.contains("FAIL "), "\(text)")
    #expect(text.contains("PASS phone -> alice"), "\(text)")
    #expect(text.contains("PASS alice -> phone"), "\(text)")
    #expect(text.contains("PASS goodbye: bob printed '- alice' at once"), "\(text)")
  }
}

extension InteropEnvironment {
  /// Runs the script at `path` (from the repository root) with the binary as its argument,
  /// for up to 170 s; its exit status and its stdout and stderr together.
  static func run(_ path: String) throws -> (status: Int32, output: String) {
    let script = try ChildProcess(root.appendingPathComponent(path).path, [binary!])
    defer { script.stop() }
    let status = try script.waitForExit(timeout: .seconds(170))
    return (status, script.stdout + script.stderr)
  }
}
