import SwitchboardDNS
import SwitchboardDiscovery
import SwitchboardTestSupport
import Synchronization
import Testing

@testable import SwitchboardClient

/// A denied Local Network permission reaches the app as ``ChatClientError/localNetworkDenied``
/// through the dns_sd resolver (``DNSSDResolver``): refused when the browser opens, or when a
/// running browse stops with it; any other discovery failure stays
/// ``ChatClientError/connectFailed``. (The Network.framework path is in
/// `BonjourResolutionTests`.)
@Suite(.onTestThreads) struct LocalNetworkDeniedTests {
  static let denied = Discovery.dnsServiceError(-65570, call: "DNSServiceBrowse")
  static let service = try! ChatService(instance: "SB Target")

  /// A resolver whose browser is `open`'s.
  static func resolver(timeout: Duration = .seconds(30), _ open: @escaping DNSSDResolver.BrowserFactory)
    -> DNSSDResolver
  {
    var resolver = DNSSDResolver(timeout: timeout)
    resolver.browserFactory = open
    return resolver
  }

  @Test func aBrowserRefusedByThePolicyIsLocalNetworkDeniedAndSaysWhatToDo() async {
    let resolver = Self.resolver { _, _, _ throws(DiscoveryError) in throw Self.denied }
    do throws(ChatClientError) {
      _ = try await resolver.resolve(Self.service)
      Issue.record("resolved although browsing was refused")
    } catch {
      #expect(error == .localNetworkDenied)
      #expect(error != .connectFailed)
      let text = error.description
      #expect(text.contains("SB Target._switchboard._tcp.local"), "\(text)")
      #expect(text.contains("kDNSServiceErr_PolicyDenied (-65570)"), "\(text)")
      #expect(text.contains("Settings ▸ Privacy & Security ▸ Local Network"), "\(text)")
      #expect(text.contains("NSLocalNetworkUsageDescription") && text.contains("NSBonjourServices"), "\(text)")
    }
  }

  @Test func theStaticMemberAloneSaysWhatToDo() {
    let text = ChatClientError.localNetworkDenied.description
    #expect(text.contains("Local Network") && text.contains("NSLocalNetworkUsageDescription"), "\(text)")
  }

  @Test func aBrowseThatStopsDeniedEndsTheResolutionAtOnce() async {
    let browser = StandInBrowser()
    let resolver = Self.resolver { _, onFailure, _ throws(DiscoveryError) in
      Task { onFailure(Self.denied) }
      return browser
    }
    let started = ContinuousClock.now
    await #expect(throws: ChatClientError.localNetworkDenied) { try await resolver.resolve(Self.service) }
    #expect(ContinuousClock.now - started < .seconds(20), "waited for the 30 s timeout")
    #expect(browser.stopped)
  }

  @Test(arguments: [DiscoveryError.systemUnavailable, .socket, .unsupported])
  func otherDiscoveryFailuresAreConnectFailed(failure: DiscoveryError) async {
    let atOpen = Self.resolver { _, _, _ throws(DiscoveryError) in throw failure }
    await #expect(throws: ChatClientError.connectFailed) { try await atOpen.resolve(Self.service) }
    let later = Self.resolver { _, onFailure, _ throws(DiscoveryError) in
      Task { onFailure(failure) }
      return StandInBrowser()
    }
    await #expect(throws: ChatClientError.connectFailed) { try await later.resolve(Self.service) }
  }

  @Test func theMappingSendsOnlyTheDenialToLocalNetworkDenied() {
    #expect(ChatClientError.discovery(Self.denied, browsing: Self.service) == .localNetworkDenied)
    #expect(ChatClientError.discovery(.systemUnavailable, browsing: Self.service) == .connectFailed)
    #expect(ChatClientError.discovery(.invalidServiceType, browsing: Self.service) == .connectFailed)
  }

  /// The client reports it as an event and keeps retrying (the user may allow access).
  @Test func aClientReportsTheDenialAsAnEventOnEveryAttempt() async throws {
    var config = ChatClient.Configuration.forTesting
    config.resolver = Self.resolver { _, _, _ throws(DiscoveryError) in throw Self.denied }
    config.reconnect = ReconnectPolicy(initialDelay: .milliseconds(20), maxAttempts: 1)
    let client = try ChatProbe("dnssd://SB%20Target._switchboard._tcp.local", name: "x", configuration: config)
    try await eventually("the client to give up") {
      client.events.contains { if case .error(.gaveUp) = $0 { true } else { false } }
    }
    let errors = client.events.compactMap { event -> ChatClientError? in
      if case .error(let e) = event { e } else { nil }
    }
    #expect(errors == [.localNetworkDenied, .localNetworkDenied, .gaveUp])
    await client.stop()
  }
}

/// A browser that finds nothing and records its shutdown.
final class StandInBrowser: ServiceBrowser {
  private let shut = Atomic<Bool>(false)
  let backend = DiscoveryBackend.system
  var interfaces: [MDNSInterface] { [] }
  var stopped: Bool { shut.load(ordering: .relaxed) }
  func shutdown() { shut.store(true, ordering: .relaxed) }
}
