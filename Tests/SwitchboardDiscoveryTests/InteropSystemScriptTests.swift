import Foundation
import SwitchboardTestSupport
import Testing

/// `scripts/discovery/interop-system.sh`: the system DNS-SD backend (`--mdns system` and
/// `auto`) against avahi-daemon in network namespaces the script creates (and deletes). Runs
/// only where ``InteropEnvironment`` allows it (`SWITCHBOARD_INTEROP=1`, root, `ip netns`).
@Suite(
  .enabled(ifAvailable: InteropEnvironment.skipReason == nil, Comment(rawValue: InteropEnvironment.skipReason ?? "")),
  .onTestThreads)
struct InteropSystemScriptTests {
  @Test(.timeLimit(.minutes(3)))
  func avahiSeesTheSystemBackendAndItSeesAvahiAndAutoPicksEither() throws {
    let (status, text) = try InteropEnvironment.runScript("interop-system.sh")
    #expect(status == 0, "\(text)")
    for line in ["PASS goodbye", "PASS --mdns auto: the system backend", "PASS browse --mdns system: avahi sys"] {
      #expect(text.contains(line), "\(text)")
    }
  }
}
