import SwitchboardDNS
import SwitchboardIO
import SwitchboardTestSupport
import Testing

@testable import SwitchboardDiscovery

/// `switchboard peer`'s peer table: who is a peer, where datagrams to it go, whose a
/// datagram is.
@Suite(.onTestThreads) struct PeerTableTests {
  static let type = "_networkplayground._udp"

  static func service(
    _ name: String, port: UInt16 = 7000, v4: [DNSIPv4Address] = [DNSIPv4Address(10, 0, 0, 2)],
    v6: [String] = [], interface: UInt32 = 2, type: String = type
  ) -> MDNSResolvedService {
    MDNSResolvedService(
      instance: name, type: type, host: "\(name).local", port: port, txt: .empty, ipv4: v4,
      ipv6: v6.map { DNSIPv6Address($0)! }, interface: interface)
  }

  static func address(_ text: String, _ port: Int, scope: UInt32 = 0) -> SocketAddress {
    try! SocketAddress(host: text, port: port).withScope(scope)
  }

  @Test func aResolvedInstanceAppearsWithItsIPv4Destination() {
    var table = PeerTable(ownName: "alice", type: Self.type)
    let changes = table.apply(.added(Self.service("bob", port: 7001)))
    guard case .appeared(let peer) = changes.first, changes.count == 1 else {
      Issue.record("expected one appearance, got \(changes)")
      return
    }
    #expect(peer.name == "bob")
    #expect(peer.host == "bob.local")
    #expect(peer.destination == Self.address("10.0.0.2", 7001))
    #expect(table.peers.map(\.name) == ["bob"])
  }

  @Test func ourOwnAdvertisementIsNeverAPeerWhateverItsCase() {
    var table = PeerTable(ownName: "Alice", type: Self.type)
    #expect(table.apply(.added(Self.service("alice"))).isEmpty)
    #expect(table.apply(.added(Self.service("ALICE", interface: 3))).isEmpty)
    #expect(table.peers.isEmpty)
    #expect(table.name(of: Self.address("10.0.0.2", 7000)) == nil)
  }

  @Test func aRenameMakesTheOldNameAPeerAndHidesTheNewOne() {
    // Two peers called "twin": ours lost the name and became "twin (2)".
    var table = PeerTable(ownName: "twin", type: Self.type)
    #expect(table.apply(.added(Self.service("twin", port: 7001))).isEmpty)
    #expect(
      table.apply(.added(Self.service("twin (2)", port: 7002, v4: [DNSIPv4Address(10, 0, 0, 9)]))).count == 1)
    let changes = table.rename(to: "twin (2)")
    #expect(changes.count == 2)
    #expect(changes.contains { if case .appeared(let p) = $0 { p.name == "twin" } else { false } })
    #expect(changes.contains(.disappeared(name: "twin (2)")))
    #expect(table.ownName == "twin (2)")
    #expect(table.peers.map(\.name) == ["twin"])
  }

  @Test func aPeerStaysWhileAnyInterfaceHasItAndGoesWithTheLast() {
    var table = PeerTable(ownName: "alice", type: Self.type)
    _ = table.apply(.added(Self.service("bob", interface: 2)))
    #expect(table.apply(.added(Self.service("bob", interface: 3))).isEmpty)
    #expect(table.apply(.removed(instance: "bob", type: Self.type, interface: 2)).isEmpty)
    #expect(table.peers.count == 1)
    #expect(
      table.apply(.removed(instance: "BOB", type: Self.type, interface: 3)) == [.disappeared(name: "bob")])
    #expect(table.peers.isEmpty)
    #expect(table.apply(.removed(instance: "bob", type: Self.type, interface: 3)).isEmpty)
  }

  @Test func aNewPortIsAMoveAndAnUnchangedUpdateIsNothing() {
    var table = PeerTable(ownName: "alice", type: Self.type)
    _ = table.apply(.added(Self.service("bob", port: 7001)))
    #expect(table.apply(.updated(Self.service("bob", port: 7001))).isEmpty)
    let changes = table.apply(.updated(Self.service("bob", port: 7005)))
    guard case .moved(let peer) = changes.first else {
      Issue.record("expected a move, got \(changes)")
      return
    }
    #expect(peer.destination.port == 7005)
  }

  @Test func destinationPrefersIPv4ThenGlobalThenLinkLocalIPv6ScopedToItsInterface() {
    var table = PeerTable(ownName: "alice", type: Self.type)
    _ = table.apply(
      .added(Self.service("v4", v4: [DNSIPv4Address(10, 0, 0, 2)], v6: ["fe80::1", "2001:db8::1"])))
    _ = table.apply(.added(Self.service("global", v4: [], v6: ["fe80::2", "2001:db8::2"])))
    _ = table.apply(.added(Self.service("local", v4: [], v6: ["fe80::3"], interface: 7)))
    #expect(table.peer(named: "v4")?.destination == Self.address("10.0.0.2", 7000))
    #expect(table.peer(named: "global")?.destination == Self.address("2001:db8::2", 7000))
    #expect(table.peer(named: "local")?.destination == Self.address("fe80::3", 7000, scope: 7))
  }

  @Test func withoutAnIPv6SocketAnIPv6OnlyInstanceIsNoPeer() {
    var table = PeerTable(ownName: "alice", type: Self.type, ipv6: false)
    #expect(table.apply(.added(Self.service("v6only", v4: [], v6: ["2001:db8::2"]))).isEmpty)
    #expect(table.peers.isEmpty)
  }

  @Test func aDatagramIsThePeersOnlyFromOneOfItsAddressesAndItsPort() {
    var table = PeerTable(ownName: "alice", type: Self.type)
    _ = table.apply(.added(Self.service("bob", port: 7001, v6: ["fe80::b"], interface: 4)))
    #expect(table.name(of: Self.address("10.0.0.2", 7001)) == "bob")
    #expect(table.name(of: Self.address("fe80::b", 7001, scope: 4)) == "bob")
    // An iPhone's NWConnection sends from an ephemeral port, not the advertised one.
    #expect(table.name(of: Self.address("10.0.0.2", 53211)) == nil)
    #expect(table.name(of: Self.address("fe80::b", 7001, scope: 5)) == nil)
    #expect(table.name(of: Self.address("10.0.0.3", 7001)) == nil)
  }

  @Test func eventsOfAnotherTypeAreIgnored() {
    var table = PeerTable(ownName: "alice", type: Self.type)
    #expect(table.apply(.added(Self.service("web", type: "_http._tcp"))).isEmpty)
    #expect(table.apply(.added(Self.service("bob", type: "_NetworkPlayground._UDP"))).count == 1)
  }
}
