import SwitchboardDNS
import SwitchboardIO

/// A service instance a browser found and resolved: where it runs and what its TXT says.
public struct MDNSResolvedService: Sendable, Hashable {
  /// The instance name (one label of any UTF-8).
  public var instance: String
  /// The service type (`_switchboard._tcp`).
  public var type: String
  /// The domain (`local`).
  public var domain: String
  /// The SRV target, without the trailing dot (`vm.local`).
  public var host: String
  /// The SRV port.
  public var port: UInt16
  /// The TXT attributes.
  public var txt: DNSTXT
  /// The host's IPv4 addresses as seen on ``interface``.
  public var ipv4: [DNSIPv4Address]
  /// The host's IPv6 addresses as seen on ``interface`` (link-local ones are scoped to it).
  public var ipv6: [DNSIPv6Address]
  /// The index of the interface it was found on.
  public var interface: UInt32

  /// A resolved service.
  public init(
    instance: String, type: String, domain: String = "local", host: String, port: UInt16, txt: DNSTXT,
    ipv4: [DNSIPv4Address], ipv6: [DNSIPv6Address], interface: UInt32
  ) {
    self.instance = instance
    self.type = type
    self.domain = domain
    self.host = host
    self.port = port
    self.txt = txt
    self.ipv4 = ipv4
    self.ipv6 = ipv6
    self.interface = interface
  }
}

/// What a browser reports.
public enum MDNSBrowserEvent: Sendable, Hashable {
  /// A new instance, resolved.
  case added(MDNSResolvedService)
  /// A known instance's host, port, addresses or TXT changed.
  case updated(MDNSResolvedService)
  /// An instance went away (goodbye or expiry) on that interface.
  case removed(instance: String, type: String, interface: UInt32)
}

/// What the shell around an ``MDNSBrowser`` must do.
public enum MDNSBrowserAction: Sendable, Hashable {
  /// Send this query.
  case send(DNSMessage, to: MDNSDestination)
  /// Call ``MDNSBrowser/timerFired(now:)`` at this time (replaces any earlier request).
  case scheduleTimer(at: Deadline)
  /// Report this.
  case event(MDNSBrowserEvent)
}
