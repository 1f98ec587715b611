/// An address of one of this machine's network interfaces.
public struct InterfaceAddress: Sendable, Hashable {
  /// The interface name (`eth0`, `en0`, `lo`).
  public let name: String
  /// The address (port 0).
  public let address: SocketAddress
  /// `true` for loopback interfaces.
  public let isLoopback: Bool
  /// The interface index (`if_nametoindex`), what multicast options and IPv6 scopes use.
  public var index: UInt32 = 0
  /// Whether the interface can multicast (`IFF_MULTICAST`).
  public var supportsMulticast = false
  /// The address's netmask (`ifa_netmask`), what says which sources share its subnet;
  /// `nil` when the system gives none.
  public var netmask: SocketAddress?
}
