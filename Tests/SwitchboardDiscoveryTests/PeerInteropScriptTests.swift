import Foundation
import SwitchboardTestSupport
import Testing

/// `scripts/discovery/interop-peer.sh`: two `switchboard peer`s in two network namespaces
/// exchange datagrams, a python-zeroconf stand-in for seed 003's iPhone exchanges datagrams
/// with them, avahi-browse sees them. Gated like ``InteropScriptTests`` (root, `ip netns`,
/// `SWITCHBOARD_INTEROP=1`).
@Suite(
  .enabled(if: InteropEnvironment.skipReason == nil, Comment(rawValue: InteropEnvironment.skipReason ?? "")), .onTestThreads)
struct PeerInteropScriptTests {
  @Test(.timeLimit(.minutes(3)))
  func twoPeersAndAZeroconfPhoneExchangeDatagramsAndAvahiSeesThem() throws {
    let script = try ChildProcess(
      InteropEnvironment.root.appendingPathComponent("scripts/discovery/interop-peer.sh").path,
      [InteropEnvironment.binary!])
    defer { script.stop() }
    let status = try script.waitForExit(timeout: .seconds(170))
    let text = script.stdout + script.stderr
    #expect(status == 0, "\(text)")
    #expect(!text.contains("FAIL "), "\(text)")
    #expect(text.contains("PASS phone -> alice"), "\(text)")
    #expect(text.contains("PASS alice -> phone"), "\(text)")
    #expect(text.contains("PASS goodbye: bob printed '- alice' at once"), "\(text)")
  }
}
