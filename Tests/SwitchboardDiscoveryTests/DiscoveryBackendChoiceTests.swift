import SwitchboardTestSupport
import Testing

@testable import SwitchboardDiscovery

/// Which DNS-SD backend a platform runs, decided in shared code so that Linux tests what macOS
/// and iOS do: the system's mDNSResponder by default, and the built-in responder refused there
/// with a message that names the platform.
@Suite(.onTestThreads) struct DiscoveryBackendChoiceTests {
  private let daemonDown = DiscoveryError.systemUnavailable.with(
    "mDNSResponder does not answer: kDNSServiceErr_ServiceNotRunning (-65563)")

  @Test func onAMacAutoIsMDNSResponder() throws {
    let chosen = Discovery.decide(.auto, builtinRuns: false, systemUnavailable: nil, platform: "macOS")
    #expect(try chosen.get() == .system)
    #expect(
      try Discovery.decide(.system, builtinRuns: false, systemUnavailable: nil, platform: "macOS").get()
        == .system)
  }

  @Test func onAMacTheBuiltInResponderIsRefusedNamingThePlatformAndTheWayOut() {
    let refused = Discovery.decide(.builtin, builtinRuns: false, systemUnavailable: nil, platform: "macOS")
    guard case .failure(let error) = refused else {
      Issue.record("the built-in responder was accepted where it does not run: \(refused)")
      return
    }
    #expect(error == .unsupported)
    #expect(error.message.contains("does not run on macOS"), "\(error.message)")
    #expect(error.message.contains("--mdns system"), "\(error.message)")
  }

  @Test func onAMacWithoutItsDaemonAutoFailsInsteadOfFallingBackToTheBuiltInResponder() {
    let chosen = Discovery.decide(.auto, builtinRuns: false, systemUnavailable: daemonDown, platform: "iOS")
    guard case .failure(let error) = chosen else {
      Issue.record("auto fell back to a responder that does not run on iOS: \(chosen)")
      return
    }
    #expect(error == .systemUnavailable)
    #expect(error.message.contains("mDNSResponder does not answer"), "\(error.message)")
    #expect(error.message.contains("does not run on iOS"), "\(error.message)")
  }

  @Test func onAnIPhoneADeniedLocalNetworkStaysThatErrorThroughAuto() {
    let denied = DiscoveryError.localNetworkDenied.with(
      "mDNSResponder refused to browse: kDNSServiceErr_PolicyDenied (-65570)")
    let chosen = Discovery.decide(.auto, builtinRuns: false, systemUnavailable: denied, platform: "iOS")
    guard case .failure(let error) = chosen else {
      Issue.record("auto chose a backend although the permission is denied: \(chosen)")
      return
    }
    #expect(error == .localNetworkDenied)
    #expect(error.message.contains("PolicyDenied"), "\(error.message)")
  }

  @Test func onLinuxAutoFallsBackToTheBuiltInResponder() throws {
    #expect(
      try Discovery.decide(.auto, builtinRuns: true, systemUnavailable: nil, platform: "Linux").get()
        == .system)
    #expect(
      try Discovery.decide(.auto, builtinRuns: true, systemUnavailable: daemonDown, platform: "Linux").get()
        == .builtin)
    #expect(
      try Discovery.decide(.builtin, builtinRuns: true, systemUnavailable: nil, platform: "Linux").get()
        == .builtin)
  }

  @Test func thisMachineRunsTheBuiltInResponderOnlyOnLinux() {
    #if os(Linux)
      #expect(Discovery.builtinRunsHere)
    #else
      #expect(!Discovery.builtinRunsHere)
      #expect(Discovery.resolve(.auto) == .system)
    #endif
  }
}
