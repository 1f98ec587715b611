import SwitchboardClient
import SwitchboardDNS
import SwitchboardDiscovery

/// A ``ChatServiceResolver`` standing for a load balancer in front of the nodes: each
/// resolution answers the first node (in the client's order of preference) still running,
/// so a client whose node died reconnects to another one.
struct NodeResolver: ChatServiceResolver {
  let nodes: [ScaleOutNode]

  func resolve(_ service: ChatService) async throws(ChatClientError) -> MDNSResolvedService {
    guard let node = nodes.first(where: \.isRunning) else { throw ChatClientError.serviceNotFound }
    return MDNSResolvedService(
      instance: service.instance, type: service.type, host: "", port: UInt16(node.httpPort), txt: DNSTXT(),
      ipv4: [DNSIPv4Address(127, 0, 0, 1)], ipv6: [], interface: 0)
  }
}
