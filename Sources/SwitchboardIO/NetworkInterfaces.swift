#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The machine's interface addresses, for printing the URLs a phone on the LAN can use.
public enum NetworkInterfaces {
  /// Every IPv4 and IPv6 address of every interface that is up, loopback last.
  public static func addresses() -> [InterfaceAddress] {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0, let first = list else { return [] }
    defer { freeifaddrs(list) }
    var result: [InterfaceAddress] = []
    var cursor: UnsafeMutablePointer<ifaddrs>? = first
    while let entry = cursor {
      defer { cursor = entry.pointee.ifa_next }
      let flags = Int32(entry.pointee.ifa_flags)
      guard flags & Int32(IFF_UP) != 0, let sa = entry.pointee.ifa_addr,
        let address = SocketAddress(sa)
      else { continue }
      var interface = InterfaceAddress(
        name: String(cString: entry.pointee.ifa_name), address: address,
        isLoopback: flags & Int32(IFF_LOOPBACK) != 0)
      interface.index = if_nametoindex(entry.pointee.ifa_name)
      interface.supportsMulticast = flags & Int32(IFF_MULTICAST) != 0
      interface.netmask = entry.pointee.ifa_netmask.flatMap { SocketAddress($0) }
      result.append(interface)
    }
    return result.filter { !$0.isLoopback } + result.filter { $0.isLoopback }
  }
}
