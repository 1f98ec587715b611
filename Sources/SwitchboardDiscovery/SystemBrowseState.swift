import SwitchboardDNS

/// What the system browser knows, as a pure state machine: DNS-SD browse, resolve and
/// address replies in, the operations to start or stop and the ``MDNSBrowserEvent``s to
/// report out — the same events as the built-in browser's. No daemon inside; tests feed it
/// replies.
///
/// avahi's library reports an instance (and each address record) once per IP protocol it
/// was seen over, with the same interface index, so appearances are counted: an instance is
/// gone when every appearance is. It is reported (`added`, then `updated` on any change)
/// once it has a host, port and TXT and at least one address.
struct SystemBrowseState {
  /// One instance on one interface, as the browse reply names it (type and domain as given
  /// to the browse and as replied, which a resolve takes back).
  struct Key: Hashable {
    var instance: String
    var type: String
    var domain: String
    var interface: UInt32
  }

  /// An address of a resolved instance's host.
  enum Address: Hashable {
    case ipv4(DNSIPv4Address)
    case ipv6(DNSIPv6Address)
  }

  /// What the shell must do.
  enum Action: Hashable {
    /// Start resolving the instance.
    case resolve(Key)
    /// Query the A and AAAA records of `host` for the instance (stopping earlier queries).
    case queryAddresses(Key, host: String)
    /// Stop the instance's resolve and queries.
    case stop(Key)
    /// Report this.
    case event(MDNSBrowserEvent)
  }

  /// The SRV and TXT of an instance.
  private struct Target: Hashable {
    var host: String
    var port: UInt16
    var txt: DNSTXT
  }

  private struct Instance {
    var appearances = 1
    var target: Target?
    /// Each address with how many times it was reported added and not yet removed.
    var addresses: [(address: Address, count: Int)] = []
    var reported: MDNSResolvedService?
  }

  private var instances: [Key: Instance] = [:]

  /// The instances known now (for tests and logs).
  var count: Int { instances.count }

  /// A browse reply: the instance appeared (`added`) or one of its appearances went away.
  mutating func browsed(_ key: Key, added: Bool) -> [Action] {
    if added {
      if instances[key] != nil {
        instances[key]!.appearances += 1
        return []
      }
      instances[key] = Instance()
      return [.resolve(key)]
    }
    guard var instance = instances[key] else { return [] }
    instance.appearances -= 1
    guard instance.appearances <= 0 else {
      instances[key] = instance
      return []
    }
    instances[key] = nil
    var actions: [Action] = [.stop(key)]
    if instance.reported != nil {
      actions.append(
        .event(.removed(instance: key.instance, type: Self.trimmed(key.type), interface: key.interface)))
    }
    return actions
  }

  /// A resolve reply: the instance's SRV target (`vm.local.`), port and TXT.
  mutating func resolved(_ key: Key, host: String, port: UInt16, txt: DNSTXT) -> [Action] {
    guard var instance = instances[key] else { return [] }
    let target = Target(host: host, port: port, txt: txt)
    guard instance.target != target else { return [] }
    var actions: [Action] = []
    if instance.target?.host.lowercased() != host.lowercased() {
      instance.addresses = []
      actions.append(.queryAddresses(key, host: host))
    }
    instance.target = target
    instances[key] = instance
    return actions + report(key)
  }

  /// A query reply: an address of the instance's host appeared (`added`) or went away.
  mutating func address(_ key: Key, added: Bool, _ address: Address) -> [Action] {
    guard var instance = instances[key] else { return [] }
    if let index = instance.addresses.firstIndex(where: { $0.address == address }) {
      instance.addresses[index].count += added ? 1 : -1
      if instance.addresses[index].count <= 0 { instance.addresses.remove(at: index) }
    } else if added {
      instance.addresses.append((address, 1))
    }
    instances[key] = instance
    return report(key)
  }

  /// `added` or `updated` when the instance is complete and differs from what was reported.
  private mutating func report(_ key: Key) -> [Action] {
    guard var instance = instances[key], let target = instance.target, !instance.addresses.isEmpty else {
      return []
    }
    let service = MDNSResolvedService(
      instance: key.instance, type: Self.trimmed(key.type), domain: Self.trimmed(key.domain),
      host: Self.trimmed(target.host), port: target.port, txt: target.txt,
      ipv4: instance.addresses.compactMap { if case .ipv4(let a) = $0.address { a } else { nil } },
      ipv6: instance.addresses.compactMap { if case .ipv6(let a) = $0.address { a } else { nil } },
      interface: key.interface)
    guard service != instance.reported else { return [] }
    let event: MDNSBrowserEvent = instance.reported == nil ? .added(service) : .updated(service)
    instance.reported = service
    instances[key] = instance
    return [.event(event)]
  }

  /// A name without its trailing dot (`local.` → `local`).
  static func trimmed(_ name: String) -> String { name.hasSuffix(".") ? String(name.dropLast()) : name }
}
