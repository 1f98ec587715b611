/// Options for a listening or datagram socket.
public struct SocketOptions: Sendable {
  /// `SO_REUSEADDR` (on by default so a restarted server can bind at once).
  public var reuseAddress = true
  /// `SO_REUSEPORT`, for several processes or loops sharing a port. Linux spreads incoming
  /// connections over the sockets; Darwin does not (mDNS's shared port 5353 is what uses it).
  public var reusePort = false
  /// `listen()` backlog.
  public var backlog: Int32 = 1024
  /// `IPV6_V6ONLY` for IPv6 sockets (off: `::` also accepts IPv4).
  public var v6Only = false
  public init() {}
}
