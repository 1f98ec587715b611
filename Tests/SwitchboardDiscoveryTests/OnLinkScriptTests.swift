import Foundation
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `scripts/discovery/onlink.sh`: `switchboard serve`'s built-in responder, in network
/// namespaces the script creates (and deletes), answers a legacy unicast query from its own
/// subnet, ignores and counts one routed in from another subnet, and rate-limits one source
/// (RFC 6762 §5.5, §6.7, §11). It needs only root, `ip netns` and python3 (nothing is
/// installed, ~10 s), so unlike the avahi/zeroconf scripts it runs without
/// `SWITCHBOARD_INTEROP=1`.
@Suite(
  .enabled(ifAvailable: OnLinkEnvironment.skipReason == nil, Comment(rawValue: OnLinkEnvironment.skipReason ?? "")),
  .onTestThreads)
struct OnLinkScriptTests {
  @Test(.timeLimit(.minutes(2)))
  func offLinkLegacyQueriesAreIgnoredAndCountedOnLinkOnesAnsweredAndRateLimited() throws {
    let (status, text) = try InteropEnvironment.runScript("onlink.sh", timeout: .seconds(100))
    #expect(status == 0, "\(text)")
    for line in [
      "PASS on-link legacy query", "PASS off-link legacy queries", "PASS /metrics: switchboard_mdns_offlink",
      "PASS 30 legacy queries from one on-link source",
    ] {
      #expect(text.contains(line), "\(text)")
    }
  }
}

/// Whether this machine can run `onlink.sh`.
enum OnLinkEnvironment {
  /// Why not, or `nil` when it can.
  static let skipReason: String? = {
    guard getuid() == 0 else { return "needs root (network namespaces)" }
    guard InteropEnvironment.binary != nil else { return "build the switchboard executable first" }
    guard commandSucceeds(["python3", "-c", "pass"]) else { return "needs python3" }
    return commandSucceeds(["ip", "netns", "list"]) ? nil : "ip netns does not work here"
  }()
}
