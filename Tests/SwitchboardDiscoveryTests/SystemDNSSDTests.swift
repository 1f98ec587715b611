import Foundation
import SwitchboardIO
import SwitchboardTestSupport
import Testing

@testable import SwitchboardDiscovery

/// The system backend where no daemon is needed: the library's absence, error mapping, and
/// `--mdns system` against a bus that does not exist (a child process, so this process's
/// environment stays as it is; nothing is published or multicast).
@Suite(.onTestThreads) struct SystemDNSSDTests {
  @Test func aMissingLibraryIsSystemUnavailableAndSaysWhatToInstall() {
    guard case .failure(let error) = SystemDNSSD.load(from: ["libswitchboard-no-such-dns_sd.so.9"]) else {
      Issue.record("a library that does not exist loaded")
      return
    }
    #expect(error == .systemUnavailable)
    #expect(error.message.contains("libswitchboard-no-such-dns_sd.so.9"), "\(error.message)")
    #if os(Linux)
      #expect(error.message.contains("libavahi-compat-libdnssd1"), "\(error.message)")
    #endif
  }

  @Test(arguments: [
    (Int32(-65548), DiscoveryError.nameConflict, "kDNSServiceErr_NameConflict (-65548)"),
    (-65540, .invalidInstanceName, "kDNSServiceErr_BadParam (-65540)"),
    (-65549, .invalidInstanceName, "kDNSServiceErr_Invalid (-65549)"),
    (-65537, .systemUnavailable, "kDNSServiceErr_Unknown (-65537)"),
    (-65563, .systemUnavailable, "kDNSServiceErr_ServiceNotRunning (-65563)"),
    (-65999, .systemUnavailable, "kDNSServiceErr_Unknown (-65999)"),
  ])
  func errorCodesMapToDiscoveryErrors(code: Int32, expected: DiscoveryError, text: String) {
    let error = SystemDNSSD.error(code, call: "DNSServiceRegister", badParameter: .invalidInstanceName)
    #expect(error == expected)
    #expect(error.message == "DNSServiceRegister: \(text)")
  }

  @Test func aDeniedLocalNetworkPermissionIsAnErrorOfItsOwn() {
    let error = SystemDNSSD.error(-65570, call: "DNSServiceBrowse")
    #expect(error == .localNetworkDenied)
    #expect(error != .systemUnavailable)
    #expect(error.message == "DNSServiceBrowse: kDNSServiceErr_PolicyDenied (-65570)")
    #expect(Discovery.dnsServiceError(-65570, call: "NWBrowser") == .localNetworkDenied)
    #expect(Discovery.policyDeniedCode == -65570)
  }

  @Test func aProbeRefusedByPolicyIsLocalNetworkDeniedAndAnyOtherRefusalIsUnavailable() {
    let denied = SystemDNSSD.probeFailure(-65570)
    #expect(denied == .localNetworkDenied)
    #expect(denied.message.contains("kDNSServiceErr_PolicyDenied (-65570)"), "\(denied.message)")
    let down = SystemDNSSD.probeFailure(-65563)
    #expect(down == .systemUnavailable)
    #expect(down.message.contains("does not answer"), "\(down.message)")
  }

  @Test func aBrowseThatIsRefusedIsAnInvalidTypeByDefault() {
    #expect(SystemDNSSD.error(-65540, call: "DNSServiceBrowse") == .invalidServiceType)
  }

  @Test(
    .enabled(ifAvailable: InteropEnvironment.binary != nil, "build the switchboard executable first"),
    .enabled(ifAvailable: BuildPlatform.isLinux, "avahi on a missing D-Bus (mDNSResponder answers on macOS)"),
    arguments: [
      ["advertise", "Nobody", "_switchboard._tcp", "7000"],
      ["browse", "_switchboard._tcp", "--timeout", "2"],
    ])
  func systemWithoutADaemonExitsOneWithTheReason(command: [String]) throws {
    let bus = "unix:path=/nonexistent/switchboard-test-bus"
    let child = try ChildProcess(
      InteropEnvironment.binary!, command + ["--mdns", "system"],
      environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus])
    defer { child.stop() }
    let status = try child.waitForExit(timeout: .seconds(20))
    let text = child.stdout + child.stderr
    #expect(status == 1, "\(text)")
    #expect(text.contains("switchboard \(command[0]): "), "\(text)")
    // Either the library is missing here or avahi-daemon does not answer on that bus.
    #expect(
      text.contains("avahi-daemon does not answer on the system D-Bus (\(bus))")
        || text.contains("no DNS-SD library"),
      "\(text)")
  }
}
