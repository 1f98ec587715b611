import SwitchboardDNS
import SwitchboardIO
import Testing

@testable import SwitchboardDiscovery

/// RFC 6762 §5.5 and §11 on a manual clock: queries are answered only when their source is on
/// the link they came in on, and legacy unicast answers are rate-limited per source.
@Suite(.onTestThreads) struct MDNSSourceCheckTests {
  typealias H = ResponderHarness
  static let instance = "Chat Room._switchboard._tcp.local."

  static let lan = MDNSInterface(
    index: 3, name: "eth0", ipv4: [DNSIPv4Address(192, 168, 1, 10)],
    subnets: [
      MDNSSubnet(address: [192, 168, 1, 10], prefixLength: 24)!,
      MDNSSubnet(address: [0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], prefixLength: 64)!,
    ])

  @Test(arguments: [
    ("192.168.1.77", MDNSSourceVerdict.onLink),
    ("192.168.1.255", .onLink),
    ("192.168.2.1", .offLink),
    ("8.8.8.8", .offLink),
    ("127.0.0.1", .offLink),
    ("169.254.3.4", .onLink),
    ("fe80::1234", .onLink),
    ("febf::1", .onLink),
    ("fec0::1", .offLink),
    ("fd00::99", .onLink),
    ("fd00:0:0:1::99", .offLink),
    ("2001:db8::1", .offLink),
  ])
  func theVerdictIsOnLinkOnlyForTheInterfacesSubnetsAndLinkLocalSources(
    source: String, expected: MDNSSourceVerdict
  ) throws {
    let address = try SocketAddress(host: source, port: 40000)
    #expect(MDNSSourceVerdict.of(address, on: Self.lan) == expected)
  }

  @Test func anInterfaceWithoutKnownSubnetsTrustsOnlyLinkLocalSources() throws {
    let bare = MDNSInterface(index: 3, name: "eth0", ipv4: [DNSIPv4Address(192, 168, 1, 10)])
    #expect(MDNSSourceVerdict.of(try SocketAddress(host: "192.168.1.77", port: 1), on: bare) == .offLink)
    #expect(MDNSSourceVerdict.of(try SocketAddress(host: "169.254.1.1", port: 1), on: bare) == .onLink)
  }

  @Test(arguments: [
    ([255, 255, 255, 0] as [UInt8], 24), ([255, 255, 0, 0], 16), ([255, 255, 255, 255], 32), ([0, 0, 0, 0], 0),
    ([255, 255, 255, 128], 25), ([255, 240, 0, 0], 12),
  ])
  func aNetmaskGivesItsLeadingOnesAsThePrefixLength(mask: [UInt8], length: Int) throws {
    let subnet = try #require(MDNSSubnet(address: [10, 1, 2, 3], netmask: mask))
    #expect(subnet.prefixLength == length)
  }

  @Test func aSubnetContainsOnlyAddressesOfItsFamilyAndPrefix() throws {
    let subnet = try #require(MDNSSubnet(address: [10, 1, 2, 3], prefixLength: 25))
    #expect(subnet.contains([10, 1, 2, 127]))
    #expect(!subnet.contains([10, 1, 2, 128]))
    #expect(!subnet.contains(Array(repeating: 0, count: 16)))
    #expect(MDNSSubnet(address: [10, 1, 2, 3], prefixLength: 33) == nil)
    #expect(MDNSSubnet(address: [10, 1, 2], prefixLength: 8) == nil)
  }

  @Test func aLegacyQueryFromAnotherSubnetGetsNoAnswerAndIsCounted() throws {
    var h = H()
    h.register("Chat Room")
    h.settle()
    h.clear()
    h.receive(H.query(Self.instance, .srv, id: 7), from: try SocketAddress(host: "203.0.113.9", port: 40123))
    h.receive(H.query("sbtest.local", .a, id: 8), from: try SocketAddress(host: "10.9.9.2", port: 53000))
    #expect(h.responses.isEmpty)
    #expect(h.responder.statistics.offLinkQueriesIgnored == 2)
    #expect(h.responder.statistics.legacyQueriesAnswered == 0)
    // The same question from the link is answered.
    h.receive(H.query(Self.instance, .srv, id: 9), from: try SocketAddress(host: "10.9.8.200", port: 40123))
    #expect(h.responses.count == 1)
    #expect(h.responder.statistics.legacyQueriesAnswered == 1)
  }

  @Test func aLinkLocalLegacyQuerierIsAnswered() throws {
    var h = H()
    h.register("Chat Room")
    h.settle()
    h.clear()
    let asker = try SocketAddress(host: "169.254.10.20", port: 40123)
    h.receive(H.query(Self.instance, .srv, id: 1), from: asker)
    #expect(h.responses.map(\.to) == [.unicast(asker, interface: H.interface.index)])
  }

  @Test func anOffLinkQueryOnPort5353IsIgnoredToo() throws {
    var h = H()
    h.register("Chat Room")
    h.settle()
    h.clear()
    h.receive(H.query(Self.instance, .srv, qu: true), from: try SocketAddress(host: "198.51.100.1", port: 5353))
    h.advance(by: .seconds(1))
    #expect(h.responses.isEmpty)
    #expect(h.responder.statistics.offLinkQueriesIgnored == 1)
  }

  @Test func legacyAnswersToOneSourceAreRateLimitedAndRefill() throws {
    var h = H {
      $0.legacyUnicastBurst = 3
      $0.legacyUnicastInterval = .seconds(1)
    }
    h.register("Chat Room")
    h.settle()
    h.clear()
    let other = try SocketAddress(host: "10.9.8.3", port: 40000)
    for port in 40001...40010 {
      h.receive(H.query(Self.instance, .srv), from: try SocketAddress(host: "10.9.8.2", port: port))
    }
    #expect(h.responses.count == 3)
    #expect(h.responder.statistics.legacyQueriesRateLimited == 7)
    // Another source has an allowance of its own.
    h.receive(H.query(Self.instance, .srv), from: other)
    #expect(h.responses.count == 4)
    // One more answer per interval.
    h.advance(by: .seconds(1))
    h.receive(H.query(Self.instance, .srv), from: try SocketAddress(host: "10.9.8.2", port: 40011))
    h.receive(H.query(Self.instance, .srv), from: try SocketAddress(host: "10.9.8.2", port: 40012))
    #expect(h.responses.count == 5)
    #expect(h.responder.statistics.legacyQueriesAnswered == 5)
  }

  @Test func theRateLimitTableIsBoundedAndForgetsQuietSources() {
    var limit = MDNSLegacyRateLimit(burst: 2, interval: .seconds(1), maxSources: 4)
    let start = Deadline(nanoseconds: 1_000_000_000)
    for last in UInt8(1)...4 {
      let allowed = limit.allow([10, 0, 0, last], now: start)
      #expect(allowed)
    }
    // Full of sources that are still spending: a fifth is refused.
    let refused = !limit.allow([10, 0, 0, 5], now: start)
    #expect(refused)
    #expect(limit.sourceCount == 4)
    // Once they have refilled, they are forgotten to make room.
    let later = limit.allow([10, 0, 0, 5], now: start.adding(.seconds(2)))
    #expect(later)
    #expect(limit.sourceCount <= 4)
  }
}
