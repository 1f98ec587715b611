import SwitchboardDNS
import SwitchboardTestSupport
import Testing

@testable import SwitchboardDiscovery

/// The system browser's state machine, fed DNS-SD replies the way avahi's library sends them
/// (each instance and address once per IP protocol), without a daemon.
@Suite(.onTestThreads) struct SystemBrowseStateTests {
  typealias State = SystemBrowseState
  static let key = State.Key(instance: "Chat ☕", type: "_switchboard._tcp.", domain: "local.", interface: 7)
  static let v4 = State.Address.ipv4(DNSIPv4Address(10, 0, 0, 2))
  static let v6 = State.Address.ipv6(DNSIPv6Address("fe80::2")!)
  static let txt = try! DNSTXT(strings: ["version=1", "flag"])

  static func service(
    ipv4: [DNSIPv4Address] = [DNSIPv4Address(10, 0, 0, 2)], ipv6: [DNSIPv6Address] = [], port: UInt16 = 7000
  )
    -> MDNSResolvedService
  {
    MDNSResolvedService(
      instance: "Chat ☕", type: "_switchboard._tcp", domain: "local", host: "peer.local", port: port,
      txt: txt,
      ipv4: ipv4, ipv6: ipv6, interface: 7)
  }

  @Test func anInstanceIsResolvedOnceAndReportedWhenItHasAnAddress() {
    var state = State()
    #expect(state.browsed(Self.key, added: true) == [.resolve(Self.key)])
    #expect(state.browsed(Self.key, added: true) == [], "the same instance over the other IP protocol")
    #expect(
      state.resolved(Self.key, host: "peer.local.", port: 7000, txt: Self.txt) == [
        .queryAddresses(Self.key, host: "peer.local.")
      ])
    #expect(state.address(Self.key, added: true, Self.v4) == [.event(.added(Self.service()))])
    #expect(state.address(Self.key, added: true, Self.v4) == [], "the same A record over IPv6")
    #expect(
      state.address(Self.key, added: true, Self.v6)
        == [.event(.updated(Self.service(ipv6: [DNSIPv6Address("fe80::2")!])))])
  }

  @Test func anInstanceGoesOnlyWhenEveryAppearanceWent() {
    var state = State()
    _ = state.browsed(Self.key, added: true)
    _ = state.browsed(Self.key, added: true)
    _ = state.resolved(Self.key, host: "peer.local.", port: 7000, txt: Self.txt)
    _ = state.address(Self.key, added: true, Self.v4)
    #expect(state.browsed(Self.key, added: false) == [])
    #expect(
      state.browsed(Self.key, added: false)
        == [.stop(Self.key), .event(.removed(instance: "Chat ☕", type: "_switchboard._tcp", interface: 7))])
    #expect(state.count == 0)
    #expect(state.browsed(Self.key, added: false) == [], "a stray removal")
  }

  @Test func anInstanceThatNeverResolvedGoesWithoutAnEvent() {
    var state = State()
    _ = state.browsed(Self.key, added: true)
    _ = state.resolved(Self.key, host: "peer.local.", port: 7000, txt: Self.txt)
    #expect(state.browsed(Self.key, added: false) == [.stop(Self.key)])
  }

  @Test func aChangedPortOrTXTIsAnUpdateAndTheSameResolveAgainIsNothing() {
    var state = State()
    _ = state.browsed(Self.key, added: true)
    _ = state.resolved(Self.key, host: "peer.local.", port: 7000, txt: Self.txt)
    _ = state.address(Self.key, added: true, Self.v4)
    #expect(state.resolved(Self.key, host: "peer.local.", port: 7000, txt: Self.txt) == [])
    #expect(
      state.resolved(Self.key, host: "peer.local.", port: 7001, txt: Self.txt) == [
        .event(.updated(Self.service(port: 7001)))
      ])
  }

  @Test func aNewHostIsQueriedAfreshAndReportedOnceItHasAnAddress() {
    var state = State()
    _ = state.browsed(Self.key, added: true)
    _ = state.resolved(Self.key, host: "peer.local.", port: 7000, txt: Self.txt)
    _ = state.address(Self.key, added: true, Self.v4)
    #expect(
      state.resolved(Self.key, host: "other.local.", port: 7000, txt: Self.txt)
        == [.queryAddresses(Self.key, host: "other.local.")])
    var moved = Self.service(ipv4: [DNSIPv4Address(10, 0, 0, 3)])
    moved.host = "other.local"
    #expect(
      state.address(Self.key, added: true, .ipv4(DNSIPv4Address(10, 0, 0, 3))) == [.event(.updated(moved))])
  }

  @Test func anAddressGoesWhenBothItsAppearancesWent() {
    var state = State()
    _ = state.browsed(Self.key, added: true)
    _ = state.resolved(Self.key, host: "peer.local.", port: 7000, txt: Self.txt)
    _ = state.address(Self.key, added: true, Self.v4)
    _ = state.address(Self.key, added: true, Self.v4)
    _ = state.address(Self.key, added: true, Self.v6)
    #expect(state.address(Self.key, added: false, Self.v4) == [])
    #expect(
      state.address(Self.key, added: false, Self.v4)
        == [.event(.updated(Self.service(ipv4: [], ipv6: [DNSIPv6Address("fe80::2")!])))])
    #expect(state.address(Self.key, added: false, Self.v6) == [], "no addresses left: nothing to report")
  }

  @Test func repliesForUnknownInstancesAreIgnored() {
    var state = State()
    #expect(state.resolved(Self.key, host: "peer.local.", port: 7000, txt: Self.txt) == [])
    #expect(state.address(Self.key, added: true, Self.v4) == [])
  }
}
