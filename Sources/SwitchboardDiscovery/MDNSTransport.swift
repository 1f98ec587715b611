import SwitchboardDNS
import SwitchboardIO
import SwitchboardLog

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The mDNS sockets of one event loop: UDP port 5353 for IPv4 and (where it can be opened)
/// IPv6, shared with other responders on the host (`SO_REUSEADDR` + `SO_REUSEPORT`), multicast
/// loop on, TTL / hop limit 255, the group joined per interface and multicast sent out of
/// the interface asked for. Loop thread only; used by ``MDNSAdvertiser`` and ``MDNSBrowserSession``.
final class MDNSTransport {
  /// 224.0.0.251:5353.
  static let groupV4 = try! SocketAddress(host: "224.0.0.251", port: 5353)
  /// [ff02::fb]:5353.
  static let groupV6 = try! SocketAddress(host: "ff02::fb", port: 5353)

  let loop: EventLoop
  private let log: Log
  private var sockets: [Int32: UDPSocket] = [:]  // by family
  private var receiver: Receiver?
  private var joined: Set<String> = []  // "family/index"
  /// The interfaces in use (read with ``interfaces(_:)``).
  private(set) var interfaces: [MDNSInterface] = []

  /// Opens the sockets; `onMessage` gets every decodable message with its sender and the
  /// index of the interface it came in on.
  /// - Throws: ``DiscoveryError/socket`` when IPv4 port 5353 cannot be bound.
  init(
    loop: EventLoop, log: Log, onMessage: @escaping (DNSMessage, SocketAddress, UInt32) -> Void
  ) throws(DiscoveryError) {
    loop.assertInEventLoop()
    guard Discovery.builtinRunsHere else { throw Discovery.builtinRefusal(platform: BuildPlatform.name) }
    self.loop = loop
    self.log = log
    let receiver = Receiver(log: log, onMessage: onMessage)
    self.receiver = receiver
    var options = SocketOptions()
    options.reuseAddress = true
    options.reusePort = true
    do {
      let v4 = try UDPSocket(
        bindingTo: try SocketAddress(host: "0.0.0.0", port: 5353), options: options, loop: loop)
      try v4.enableMulticast(hops: 255)
      v4.delegate = receiver
      sockets[AF_INET] = v4
    } catch {
      throw DiscoveryError.socket.with("IPv4 port 5353: \(error)")
    }
    options.v6Only = true
    do {
      let v6 = try UDPSocket(
        bindingTo: try SocketAddress(host: "::", port: 5353), options: options, loop: loop)
      try v6.enableMulticast(hops: 255)
      v6.delegate = receiver
      sockets[AF_INET6] = v6
    } catch {
      log.info("mDNS over IPv6 is off", metadata: ["error": "\(error)"])
    }
  }

  /// Uses these interfaces from now on: joins the groups where not joined yet.
  func use(_ interfaces: [MDNSInterface]) {
    let kept = Set(interfaces.map(\.index))
    joined = joined.filter { key in kept.contains(UInt32(key.split(separator: "/")[1]) ?? 0) }
    self.interfaces = interfaces
    for interface in interfaces {
      for (family, group, has) in [
        (AF_INET, Self.groupV4, !interface.ipv4.isEmpty), (AF_INET6, Self.groupV6, !interface.ipv6.isEmpty),
      ] where has {
        let key = "\(family)/\(interface.index)"
        guard let socket = sockets[family], !joined.contains(key) else { continue }
        do {
          try socket.joinMulticastGroup(group, interface: interface.index)
          joined.insert(key)
        } catch {
          log.warning(
            "could not join the mDNS group", metadata: ["interface": interface.name, "error": "\(error)"])
        }
      }
    }
  }

  /// Sends `message` to the group on one interface (both families it has) or to one address.
  func send(_ message: DNSMessage, to destination: MDNSDestination) {
    let bytes = message.encode()
    bytes.withUnsafeBytes { raw in
      switch destination {
      case .multicast(let index):
        guard let interface = interfaces.first(where: { $0.index == index }) else { return }
        if !interface.ipv4.isEmpty { sockets[AF_INET]?.send(raw, toGroup: Self.groupV4, interface: index) }
        if !interface.ipv6.isEmpty { sockets[AF_INET6]?.send(raw, toGroup: Self.groupV6, interface: index) }
      case .unicast(let address, _):
        sockets[address.family]?.send(raw, to: address)
      }
    }
  }

  /// Closes the sockets.
  func close() {
    for socket in sockets.values { socket.close() }
    sockets = [:]
  }

  /// The up, multicast-capable, non-loopback interfaces with their addresses (or the named
  /// ones, loopback included).
  static func interfaces(_ names: [String]?) -> [MDNSInterface] {
    var byIndex: [UInt32: MDNSInterface] = [:]
    for entry in NetworkInterfaces.addresses() {
      if let names {
        guard names.contains(entry.name) else { continue }
      } else {
        guard !entry.isLoopback, entry.supportsMulticast else { continue }
      }
      var interface = byIndex[entry.index] ?? MDNSInterface(index: entry.index, name: entry.name)
      let bytes = entry.address.addressBytes
      if entry.address.family == AF_INET, let v4 = DNSIPv4Address(bytes: bytes) {
        interface.ipv4.append(v4)
      } else if let v6 = DNSIPv6Address(bytes: bytes) {
        interface.ipv6.append(v6)
      }
      if let mask = entry.netmask, let subnet = MDNSSubnet(address: bytes, netmask: mask.addressBytes) {
        interface.subnets.append(subnet)
      }
      byIndex[entry.index] = interface
    }
    return byIndex.keys.sorted().map { byIndex[$0]! }
  }

  /// This machine's host name up to the first dot, as one DNS label (`localhost` and empty
  /// names become `switchboard`).
  static func machineHostName() -> String {
    guard let name = System.hostName() else { return "switchboard" }
    let label = name.split(separator: ".").first.map(String.init) ?? ""
    return label.isEmpty || label == "localhost" ? "switchboard" : String(label.prefix(63))
  }
}

@available(*, unavailable)
extension MDNSTransport: Sendable {}

/// The sockets' delegate (the sockets hold it weakly; the transport keeps it).
private final class Receiver: UDPSocketDelegate {
  let log: Log
  let onMessage: (DNSMessage, SocketAddress, UInt32) -> Void

  init(log: Log, onMessage: @escaping (DNSMessage, SocketAddress, UInt32) -> Void) {
    self.log = log
    self.onMessage = onMessage
  }

  func socket(
    _ socket: UDPSocket, didReceive bytes: UnsafeRawBufferPointer, from sender: SocketAddress, truncated: Bool
  ) {
    deliver(bytes, from: sender, interface: sender.scope, truncated: truncated)
  }

  func socket(
    _ socket: UDPSocket, didReceive bytes: UnsafeRawBufferPointer, from sender: SocketAddress,
    interface: UInt32,
    truncated: Bool
  ) {
    deliver(bytes, from: sender, interface: interface, truncated: truncated)
  }

  private func deliver(
    _ bytes: UnsafeRawBufferPointer, from sender: SocketAddress, interface: UInt32, truncated: Bool
  ) {
    guard !truncated, let message = try? DNSMessage(decoding: Array(bytes)) else {
      log.debug("undecodable mDNS packet", metadata: ["from": "\(sender)"])
      return
    }
    // IPv6 link-local senders carry their interface as scope; pktinfo says it for IPv4.
    onMessage(message, sender, interface != 0 ? interface : sender.scope)
  }
}
