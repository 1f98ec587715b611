import SwitchboardDNS

/// A network interface the responder works on: its index (what `IP_MULTICAST_IF` and a
/// link-local address's scope use) and the addresses it answers A/AAAA questions with there.
public struct MDNSInterface: Sendable, Hashable {
  /// The interface index (`if_nametoindex`).
  public var index: UInt32
  /// The interface name, for logs.
  public var name: String
  /// IPv4 addresses on this interface.
  public var ipv4: [DNSIPv4Address]
  /// IPv6 addresses on this interface (link-local ones included: their scope is this interface).
  public var ipv6: [DNSIPv6Address]
  /// The subnets on this interface (its addresses with their prefix lengths): a query is
  /// answered only when its source is in one of them or link-local (``MDNSSourceVerdict``).
  public var subnets: [MDNSSubnet]

  /// An interface with its addresses and subnets.
  public init(
    index: UInt32, name: String, ipv4: [DNSIPv4Address] = [], ipv6: [DNSIPv6Address] = [],
    subnets: [MDNSSubnet] = []
  ) {
    self.index = index
    self.name = name
    self.ipv4 = ipv4
    self.ipv6 = ipv6
    self.subnets = subnets
  }
}
