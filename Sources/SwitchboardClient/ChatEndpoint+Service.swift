import SwitchboardDNS
import SwitchboardDiscovery

extension ChatEndpoint {
  /// The address endpoints to try, best first, for this service endpoint once it resolved
  /// as `found`; empty for an address endpoint.
  ///
  /// - Port: the SRV port; for `_http._tcp` the TXT `ws` port when it holds one (the
  ///   WebSocket's), else the SRV port.
  /// - Path (WebSocket): this endpoint's path when it is not `/`, else the TXT `path`, else `/`.
  /// - Addresses: IPv4 first, then global IPv6, then link-local IPv6 with the scope of the
  ///   interface it was found on (`fe80::1%3`); the SRV host name only when no address came.
  public func endpoints(resolvedAs found: MDNSResolvedService) -> [ChatEndpoint] {
    guard service != nil else { return [] }
    var port = Int(found.port)
    var target = path
    if scheme == .ws {
      if let ws = found.txt.entry(forKey: "ws")?.valueString.flatMap({ Int($0) }), (1...65535).contains(ws) {
        port = ws
      }
      if target == "/", let txtPath = found.txt.entry(forKey: "path")?.valueString, txtPath.hasPrefix("/") {
        target = txtPath
      }
    }
    let global = found.ipv6.filter { !$0.isLinkLocal }.map(\.description)
    let scoped = found.ipv6.filter(\.isLinkLocal).map { "\($0)%\(found.interface)" }
    var hosts = found.ipv4.map(\.description) + global + scoped
    if hosts.isEmpty && !found.host.isEmpty { hosts = [found.host] }
    return hosts.map { ChatEndpoint(scheme: scheme, host: $0, port: port, path: target, query: query) }
  }
}

extension DNSIPv6Address {
  /// Whether it is in fe80::/10, which needs the interface (its scope) to be reached.
  fileprivate var isLinkLocal: Bool { high >> 54 == 0x3FA }
}
