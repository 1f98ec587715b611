import SwitchboardTestSupport
import Testing

@testable import SwitchboardClient

/// What a network path change does (the decision behind ``ChatClient/networkPathChanged(_:)``,
/// the same on every platform).
@Suite(.onTestThreads) struct ChatPathTrackerTests {
  static let wifi = ChatNetworkPath(isSatisfied: true, interfaces: ["en0", "pdp_ip0"])
  static let cellular = ChatNetworkPath(isSatisfied: true, interfaces: ["pdp_ip0"])
  static let none = ChatNetworkPath(isSatisfied: false)

  /// The platform's default monitor: Network.framework's `NWPathMonitor` on Apple platforms,
  /// whose stream starts with the current path (the CI Mac is online); none elsewhere, where
  /// an app reports through ``ChatClient/networkPathChanged(_:)``.
  @Test func thePlatformsDefaultMonitor() async throws {
    #if canImport(Network)
      let monitor = try #require(ChatClient.Configuration().pathMonitor)
      #expect(monitor is SystemPathMonitor)
      let first = try await withTimeout(.seconds(30)) { () async -> ChatNetworkPath? in
        for await path in monitor.paths() { return path }
        return nil
      }
      #expect(first?.isSatisfied == true, "\(String(describing: first))")
    #else
      #expect(ChatClient.Configuration().pathMonitor == nil)
    #endif
  }

  @Test func theFirstPathIsWhereTheClientStarts() {
    var tracker = ChatPathTracker()
    #expect(tracker.isSatisfied)
    #expect(tracker.update(Self.wifi) == .none)
    var offline = ChatPathTracker()
    #expect(offline.update(Self.none) == .waitForNetwork)
    #expect(!offline.isSatisfied)
  }

  @Test func unsatisfiedWaitsAndSatisfiedAgainReconnectsNow() {
    var tracker = ChatPathTracker()
    _ = tracker.update(Self.wifi)
    #expect(tracker.update(Self.none) == .waitForNetwork)
    #expect(!tracker.isSatisfied)
    // Repeated reports of no network change nothing.
    #expect(tracker.update(Self.none) == .none)
    #expect(tracker.update(Self.wifi) == .reconnectNow)
    #expect(tracker.isSatisfied)
  }

  @Test func anotherSetOfInterfacesReconnectsNowTheSameSetDoesNot() {
    var tracker = ChatPathTracker()
    _ = tracker.update(Self.wifi)
    #expect(tracker.update(ChatNetworkPath(isSatisfied: true, interfaces: ["pdp_ip0", "en0"])) == .none)
    #expect(tracker.update(Self.cellular) == .reconnectNow)
    #expect(tracker.update(Self.cellular) == .none)
    #expect(tracker.update(Self.wifi) == .reconnectNow)
  }
}
