import Foundation
import SwitchboardTestSupport
import Testing

/// `scripts/discovery/interop-peer.sh`: two `switchboard peer`s in two network namespaces
/// exchange datagrams, a python-zeroconf stand-in for seed 003's iPhone exchanges datagrams
/// with them, avahi-browse sees them. Gated like ``InteropScriptTests`` (root, `ip netns`,
/// `SWITCHBOARD_INTEROP=1`).
@Suite(
  .enabled(ifAvailable: InteropEnvironment.skipReason == nil, Comment(rawValue: InteropEnvironment.skipReason ?? "")),
  .onTestThreads)
struct PeerInteropScriptTests {
  @Test(.timeLimit(.minutes(3)))
  func twoPeersAndAZeroconfPhoneExchangeDatagramsAndAvahiSeesThem() throws {
    let (status, text) = try InteropEnvironment.runScript("interop-peer.sh")
    #expect(status == 0, "\(text)")
    #expect(text.contains("PASS phone -> alice"), "\(text)")
    #expect(text.contains("PASS alice -> phone"), "\(text)")
    #expect(text.contains("PASS goodbye: bob printed '- alice' at once"), "\(text)")
  }
}
