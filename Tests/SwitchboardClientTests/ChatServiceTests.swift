import SwitchboardClient
import SwitchboardDNS
import SwitchboardDiscovery
import SwitchboardIO
import SwitchboardTestSupport
import Testing

/// Service endpoints without the network: `dnssd://` URLs, and the mapping from a resolved
/// DNS-SD instance to the address endpoints the client tries.
@Suite(.onTestThreads) struct ChatServiceTests {
  @Test func aServiceURLNamesInstanceTypeAndDomain() throws {
    let endpoint = try ChatEndpoint("dnssd://Switchboard%20on%20mac._switchboard._tcp.local")
    let service = try #require(endpoint.service)
    #expect(service.instance == "Switchboard on mac")
    #expect(service.type == "_switchboard._tcp")
    #expect(service.domain == "local")
    #expect(endpoint.scheme == .tcp)
    #expect(endpoint.host.isEmpty && endpoint.port == 0)
    #expect(endpoint.description == "dnssd://Switchboard%20on%20mac._switchboard._tcp.local")
    #expect(try ChatEndpoint(endpoint.description) == endpoint)
  }

  @Test(arguments: [
    "dnssd://SB%20Target._switchboard._tcp", "dnssd://SB%20Target._switchboard._tcp.local.",
    "DNSSD://SB%20Target._switchboard._tcp.LOCAL/", "dnssd://SB Target._switchboard._tcp.local",
  ])
  func theDomainIsOptionalAndCaseAndTrailingDotsDoNotMatter(url: String) throws {
    let endpoint = try ChatEndpoint(url)
    #expect(endpoint.service == (try ChatService(instance: "SB Target")))
    #expect(endpoint.description == "dnssd://SB%20Target._switchboard._tcp.local")
  }

  @Test func theTypePicksTheTransport() throws {
    #expect(try ChatEndpoint("dnssd://a._switchboard._tcp.local").scheme == .tcp)
    #expect(try ChatEndpoint("dnssd://a._switchboard._udp.local").scheme == .udp)
    #expect(try ChatEndpoint("dnssd://a._http._tcp.local").scheme == .ws)
    #expect(try ChatEndpoint("dnssd://a._HTTP._TCP.local").scheme == .ws)
    #expect(try ChatEndpoint("dnssd://a._networkplayground._udp.local").scheme == .udp)
  }

  @Test func dotsInTheInstanceStayInTheInstanceAndPathsAndQueriesAreKept() throws {
    let endpoint = try ChatEndpoint(
      "dnssd://Avahi%20Chat.v2%20%E2%98%95._http._tcp.local/rooms/dev?format=json")
    #expect(endpoint.service?.instance == "Avahi Chat.v2 ☕")
    #expect(endpoint.path == "/rooms/dev")
    #expect(endpoint.query == "format=json")
    #expect(endpoint.roomInPath == "dev")
    #expect(try ChatEndpoint(endpoint.description) == endpoint)
    // An escaped slash or question mark is part of the name, not the path.
    #expect(try ChatEndpoint("dnssd://a%2Fb%3Fc._switchboard._tcp").service?.instance == "a/b?c")
  }

  /// A `.` followed by a combining mark is one Character but still a label separator: the
  /// host is split at `.` bytes, so the URL form (which escapes the mark) splits the same
  /// way. Found by fuzz-url (`Tests/Fuzz/url/corpus/dnssd-instance-with-dots-and-nul`).
  @Test func dotsBeforeCombiningMarksSplitLabelsLikeAnyDot() throws {
    let endpoint = try ChatEndpoint("dnssd://a.\u{301}b\u{0}._switchboard._tcp.local")
    #expect(endpoint.service?.instance == "a.\u{301}b\u{0}")
    #expect(endpoint.description == "dnssd://a.%CC%81b%00._switchboard._tcp.local")
    #expect(try ChatEndpoint(endpoint.description) == endpoint)
    // The fuzzer's input: the label before `_tcp` is `\u{596}^bo…`, no `_name`, once the
    // `.` before U+0596 counts as a dot.
    #expect(throws: ChatClientError.invalidURL) {
      try ChatEndpoint("dnssd://..\u{0}~.S.\u{0}~\u{0}F~1o._\u{0}.\u{596}^bo\u{FFFD}^ohd._tcp.local/ront")
    }
    #expect(throws: ChatClientError.invalidURL) { try ChatService(instance: "x", type: "_a.\u{301}b._tcp") }
    #expect(try ChatService(instance: "x", type: "_a._TCP.local").type == "_a._tcp")
  }

  @Test(arguments: [
    "dnssd://", "dnssd:///rooms/x", "dnssd://plainhost", "dnssd://x._switchboard.local",
    "dnssd://_switchboard._tcp.local",
    "dnssd://x.switchboard._tcp.local", "dnssd://x._switchboard._tcp.example.com",
    "dnssd://" + String(repeating: "n", count: 64) + "._switchboard._tcp.local",
  ])
  func malformedServiceURLsAreRejected(url: String) {
    #expect(throws: ChatClientError.invalidURL) { try ChatEndpoint(url) }
  }

  @Test func theServiceInitializerChecksWhatDNSSDCanCarry() throws {
    #expect(throws: ChatClientError.invalidURL) { try ChatService(instance: "") }
    #expect(throws: ChatClientError.invalidURL) { try ChatService(instance: "x", type: "switchboard") }
    #expect(throws: ChatClientError.invalidURL) { try ChatService(instance: "x", domain: "example.com") }
    #expect(throws: ChatClientError.invalidURL) {
      try ChatClient(service: String(repeating: "é", count: 32), name: "n")
    }
    let client = try ChatClient(service: "SB Target", type: "_switchboard._udp", name: "ada")
    #expect(client.endpoint == .service(try ChatService(instance: "SB Target", type: "_switchboard._udp")))
    #expect(client.endpoint.scheme == .udp)
  }

  @Test func instancesMatchIgnoringASCIICaseOnly() throws {
    let service = try ChatService(instance: "SB Target Ä")
    #expect(service.matches(found(instance: "sb target Ä")))
    #expect(!service.matches(found(instance: "sb target ä")))  // only ASCII folds
    #expect(!service.matches(found(instance: "SB Target Ä", type: "_switchboard._udp")))
    #expect(!service.matches(found(instance: "SB Target")))
  }

  // MARK: Resolved service → endpoints

  @Test func addressesComeIPv4FirstThenGlobalIPv6ThenScopedLinkLocal() throws {
    let endpoint = try ChatEndpoint("dnssd://SB%20Target._switchboard._tcp.local")
    let resolved = found(
      port: 7000, ipv4: ["10.0.0.2", "192.168.1.9"], ipv6: ["fe80::5b:d1ff:fe00:1", "2001:db8::7"],
      interface: 3)
    let endpoints = endpoint.endpoints(resolvedAs: resolved)
    #expect(
      endpoints.map(\.description) == [
        "tcp://10.0.0.2:7000", "tcp://192.168.1.9:7000", "tcp://[2001:db8::7]:7000",
        "tcp://[fe80::5b:d1ff:fe00:1%3]:7000",
      ])
    #expect(endpoints.allSatisfy { $0.service == nil && $0.scheme == .tcp })
  }

  @Test func aScopedLinkLocalHostResolvesWithItsScope() throws {
    // The `%INDEX` form the mapping writes is what the transports resolve (getaddrinfo).
    let address = try SocketAddress.resolve(host: "fe80::5b:d1ff:fe00:1%1", port: 7000)
    #expect(address.scope == 1)
    #expect(address.port == 7000)
  }

  @Test func aWebServiceConnectsToItsTXTWebSocketPortAndPath() throws {
    let txt = try DNSTXT(strings: ["version=1", "room=lobby", "ws=1338", "path=/rooms/ops"])
    let web = try ChatEndpoint("dnssd://SB._http._tcp.local")
    let endpoints = web.endpoints(
      resolvedAs: found(type: "_http._tcp", port: 1337, txt: txt, ipv4: ["10.0.0.2"]))
    #expect(endpoints.map(\.description) == ["ws://10.0.0.2:1338/rooms/ops"])
    // The URL's own path wins over the TXT's; without TXT ws the SRV port is the WebSocket's.
    let mine = try ChatEndpoint("dnssd://SB._http._tcp.local/rooms/dev?format=json")
    #expect(
      mine.endpoints(resolvedAs: found(type: "_http._tcp", port: 1337, txt: txt, ipv4: ["10.0.0.2"]))
        .map(\.description) == ["ws://10.0.0.2:1338/rooms/dev?format=json"])
    let bare = web.endpoints(
      resolvedAs: found(type: "_http._tcp", port: 1337, txt: .empty, ipv4: ["10.0.0.2"]))
    #expect(bare.map(\.description) == ["ws://10.0.0.2:1337/"])
  }

  @Test func aDatagramServiceUsesItsSRVPortAndAnUnusableTXTPortIsIgnored() throws {
    let txt = try DNSTXT(strings: ["ws=99999"])
    let udp = try ChatEndpoint("dnssd://SB._switchboard._udp.local")
    #expect(
      udp.endpoints(resolvedAs: found(type: "_switchboard._udp", port: 8081, txt: txt, ipv4: ["10.0.0.2"]))
        .map(\.description) == ["udp://10.0.0.2:8081"])
    let web = try ChatEndpoint("dnssd://SB._http._tcp.local")
    #expect(
      web.endpoints(resolvedAs: found(type: "_http._tcp", port: 1337, txt: txt, ipv4: ["10.0.0.2"]))
        .map(\.port) == [1337])
  }

  @Test func withoutAddressesTheSRVHostIsTriedAndAnAddressEndpointHasNone() throws {
    let endpoint = try ChatEndpoint("dnssd://SB._switchboard._tcp.local")
    #expect(
      endpoint.endpoints(resolvedAs: found(port: 7000, ipv4: [])).map(\.description) == [
        "tcp://sbcli-a.local:7000"
      ])
    #expect(try ChatEndpoint("tcp://127.0.0.1:8080").endpoints(resolvedAs: found(ipv4: ["10.0.0.2"])).isEmpty)
  }
}

/// A resolved instance for the mapping tests.
func found(
  instance: String = "SB Target", type: String = "_switchboard._tcp", port: UInt16 = 8080,
  txt: DNSTXT = .empty,
  ipv4: [String] = ["127.0.0.1"], ipv6: [String] = [], interface: UInt32 = 1
) -> MDNSResolvedService {
  MDNSResolvedService(
    instance: instance, type: type, host: "sbcli-a.local", port: port, txt: txt,
    ipv4: ipv4.compactMap(DNSIPv4Address.init), ipv6: ipv6.compactMap(DNSIPv6Address.init),
    interface: interface)
}
