import Foundation
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `scripts/discovery/interop.sh`: `switchboard advertise` against avahi and python-zeroconf in
/// network namespaces the script creates (and deletes). Runs only as root where `ip netns`
/// works and the binary is built.
@Suite(
  .enabled(ifAvailable: InteropEnvironment.skipReason == nil, Comment(rawValue: InteropEnvironment.skipReason ?? "")), .onTestThreads)
struct InteropScriptTests {
  @Test(.timeLimit(.minutes(3)))
  func avahiAndZeroconfSeeAdvertiseAndItsGoodbyeAndRenames() throws {
    let (status, text) = try InteropEnvironment.runScript("interop.sh")
    #expect(status == 0, "\(text)")
    #expect(text.contains("PASS goodbye"), "\(text)")
  }
}

/// Where the script and binary are, and whether this machine can run them.
enum InteropEnvironment {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  static var binary: String? { Executables.switchboard }

  /// Why the suite cannot run here, or `nil` when it can. It also waits for
  /// `SWITCHBOARD_INTEROP=1`: the namespaces, avahi and zeroconf take a minute on a loaded
  /// machine, so `scripts/test` runs it only when asked (docs/DISCOVERY.md).
  static let skipReason: String? = {
    guard ProcessInfo.processInfo.environment["SWITCHBOARD_INTEROP"] == "1" else {
      return "set SWITCHBOARD_INTEROP=1 to run the namespace interop script"
    }
    guard getuid() == 0 else { return "needs root (network namespaces)" }
    guard binary != nil else { return "build the switchboard executable first" }
    return commandSucceeds(["ip", "netns", "list"]) ? nil : "ip netns does not work here"
  }()
}
