import SwitchboardDNS
import SwitchboardIO

/// The other peers of a UDP peer-to-peer service type (`switchboard peer`, seed 003's
/// `_networkplayground._udp`): what a browser resolved, minus this peer itself, with the one
/// address each is sent to and every address it may send from.
///
/// Pure: browser events and renames go in, ``Change``s come out. Instance names compare
/// ignoring ASCII case, as DNS names do. A peer is visible while any interface still has it
/// resolved to an address of a family we can send to; our own advertisement, which comes
/// back through multicast loop, never is — also after a rename (``rename(to:)``).
///
/// ```swift
/// var table = PeerTable(ownName: "alice", type: "_networkplayground._udp")
/// for change in table.apply(browserEvent) { print(change) }
/// table.name(of: sender)           // "bob" when the datagram came from bob's socket
/// ```
public struct PeerTable: Sendable {
  /// A peer: one instance of the type that is not us.
  public struct Peer: Sendable, Hashable {
    /// The instance name, as first seen.
    public var name: String
    /// The SRV target (`bob.local`).
    public var host: String
    /// The SRV port.
    public var port: UInt16
    /// Where datagrams to it go: its first IPv4 address, else a global IPv6 one, else a
    /// link-local one scoped to the interface it was found on (lowest interface first).
    public var destination: SocketAddress
    /// Every address and port it was resolved to, on every interface: a datagram from one of
    /// these is from this peer.
    public var addresses: [SocketAddress]
  }

  /// What changed among the visible peers.
  public enum Change: Sendable, Hashable {
    /// A new peer.
    case appeared(Peer)
    /// A known peer's destination moved (another port or address).
    case moved(Peer)
    /// A peer went away (goodbye, expiry, or it turned out to be us).
    case disappeared(name: String)
  }

  private var found: [Key: [UInt32: MDNSResolvedService]] = [:]
  private var ownKey: Key
  /// Our own instance name (after any rename).
  public private(set) var ownName: String
  /// The service type peers are of; events of other types are ignored.
  public let type: String
  /// Whether IPv6 destinations can be used (an IPv6 socket is open).
  public let ipv6: Bool

  /// A table for `type` in which `ownName` is us.
  public init(ownName: String, type: String, ipv6: Bool = true) {
    self.ownName = ownName
    self.ownKey = Key(ownName)
    self.type = type
    self.ipv6 = ipv6
  }

  /// The visible peers, by name.
  public var peers: [Peer] {
    found.keys.compactMap { visiblePeer($0) }.sorted { $0.name < $1.name }
  }

  /// The visible peer called `name` (ignoring ASCII case).
  public func peer(named name: String) -> Peer? { visiblePeer(Key(name)) }

  /// The name of the visible peer that `sender` (a datagram's source address and port)
  /// belongs to, or `nil` when it is none of theirs.
  public func name(of sender: SocketAddress) -> String? {
    peers.first { $0.addresses.contains(sender) }?.name
  }

  /// Takes a browser event in.
  public mutating func apply(_ event: MDNSBrowserEvent) -> [Change] {
    switch event {
    case .added(let service), .updated(let service):
      guard Key(service.type) == Key(type) else { return [] }
      let key = Key(service.instance)
      return change(of: key) { $0.found[key, default: [:]][service.interface] = service }
    case .removed(let instance, let type, let interface):
      guard Key(type) == Key(self.type) else { return [] }
      let key = Key(instance)
      return change(of: key) { table in
        table.found[key]?[interface] = nil
        if table.found[key]?.isEmpty == true { table.found[key] = nil }
      }
    }
  }

  /// Our advertisement now goes by `name` (a conflict renamed it): the old name, if someone
  /// else holds it, becomes a peer, and the new one stops being one.
  public mutating func rename(to name: String) -> [Change] {
    let old = ownKey
    let new = Key(name)
    let before = [visiblePeer(old), visiblePeer(new)]
    ownName = name
    ownKey = new
    let after = [visiblePeer(old), visiblePeer(new)]
    return zip(before, after).compactMap(Self.change)
  }

  // MARK: Internals

  /// An instance name folded for comparison (ASCII case only, like DNS).
  private struct Key: Hashable, Sendable {
    let folded: [UInt8]
    init(_ name: String) {
      folded = name.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }
  }

  private mutating func change(of key: Key, _ mutate: (inout PeerTable) -> Void) -> [Change] {
    let before = visiblePeer(key)
    mutate(&self)
    return Self.change(from: before, to: visiblePeer(key)).map { [$0] } ?? []
  }

  private static func change(from before: Peer?, to after: Peer?) -> Change? {
    switch (before, after) {
    case (nil, let peer?): .appeared(peer)
    case (let peer?, nil): .disappeared(name: peer.name)
    case (let old?, let new?) where old.destination != new.destination: .moved(new)
    default: nil
    }
  }

  private func visiblePeer(_ key: Key) -> Peer? {
    guard key != ownKey, let byInterface = found[key], !byInterface.isEmpty else { return nil }
    let services = byInterface.sorted { $0.key < $1.key }.map(\.value)
    var addresses: [SocketAddress] = []
    var v4: [SocketAddress] = []
    var global6: [SocketAddress] = []
    var local6: [SocketAddress] = []
    for service in services {
      let port = Int(service.port)
      for a in service.ipv4 {
        guard let address = try? SocketAddress(host: a.description, port: port) else { continue }
        addresses.append(address)
        v4.append(address)
      }
      for a in service.ipv6 {
        guard var address = try? SocketAddress(host: a.description, port: port) else { continue }
        let linkLocal = a.high >> 54 == 0x3FA  // fe80::/10
        if linkLocal { address = address.withScope(service.interface) }
        addresses.append(address)
        if linkLocal { local6.append(address) } else { global6.append(address) }
      }
    }
    let usable = v4 + (ipv6 ? global6 + local6 : [])
    guard let destination = usable.first else { return nil }
    let first = services[0]
    return Peer(
      name: first.instance, host: first.host, port: first.port, destination: destination, addresses: addresses
    )
  }
}
