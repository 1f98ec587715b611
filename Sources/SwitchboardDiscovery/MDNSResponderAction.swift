import SwitchboardDNS
import SwitchboardIO

/// Where a message the responder wants sent goes.
public enum MDNSDestination: Sendable, Hashable {
  /// The mDNS group (224.0.0.251 and, where the interface has IPv6, ff02::fb) port 5353 on
  /// the interface with this index.
  case multicast(interface: UInt32)
  /// One address (a QU querier, a legacy unicast querier), out of the interface it asked on.
  case unicast(SocketAddress, interface: UInt32)
}

/// What the shell around an ``MDNSResponder`` must do after an event.
public enum MDNSResponderAction: Sendable, Hashable {
  /// Send this message.
  case send(DNSMessage, to: MDNSDestination)
  /// Call ``MDNSResponder/timerFired(now:)`` at this time (replaces any earlier request).
  case scheduleTimer(at: Deadline)
  /// The service's name is ours: it is being announced under `name`.
  case registered(MDNSServiceID, name: String)
  /// Another responder holds the name: the service (or the host, when `nil`) now probes
  /// under `to`.
  case renamed(MDNSServiceID?, from: String, to: String)
  /// The service (or the host, when `nil`) could not keep any name within the rename limit
  /// and is withdrawn.
  case failed(MDNSServiceID?, DiscoveryError)
  /// Something the user should know, once (a service name over 15 characters).
  case warning(String)
}
