/// Options for a listening or datagram socket.
public struct SocketOptions: Sendable {
  /// `SO_REUSEADDR` (on by default so a restarted server can bind at once; off in
  /// ``exclusiveDatagram``, a UDP socket's default).
  public var reuseAddress = true
  /// `SO_REUSEPORT`, for several processes or loops sharing a port. Linux spreads incoming
  /// connections over the sockets; Darwin does not (mDNS's shared port 5353 is what uses it).
  public var reusePort = false
  /// `listen()` backlog.
  public var backlog: Int32 = 1024
  /// `IPV6_V6ONLY` for IPv6 sockets (off: `::` also accepts IPv4).
  public var v6Only = false
  public init() {}

  /// The default for a ``UDPSocket``: the port to itself. No `SO_REUSEADDR` (UDP has no
  /// `TIME_WAIT` for it to skip, and where two UDP sockets both set it they share the port,
  /// Linux handing the newer one every unicast datagram), and no `SO_REUSEPORT`: a second
  /// socket, of this process or another, cannot bind the port (`EADDRINUSE`) whatever
  /// options it sets.
  public static var exclusiveDatagram: SocketOptions {
    var options = SocketOptions()
    options.reuseAddress = false
    return options
  }
}
