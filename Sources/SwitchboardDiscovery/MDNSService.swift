import SwitchboardDNS

/// A DNS-SD service instance to publish (RFC 6763 §4): `INSTANCE._name._tcp.local` on a port,
/// with TXT attributes, on this machine's host name.
public struct MDNSService: Sendable, Hashable {
  /// The instance name, one label of any UTF-8 (`Switchboard on vm`), 1–63 bytes.
  public var instance: String
  /// The service type, `_name._tcp` or `_name._udp`.
  public var type: String
  /// The port the service listens on.
  public var port: UInt16
  /// The TXT attributes; empty is sent as one zero byte (RFC 6763 §6.1).
  public var txt: DNSTXT

  /// A service description; ``validated()`` checks it.
  public init(instance: String, type: String, port: UInt16, txt: DNSTXT = .empty) {
    self.instance = instance
    self.type = type
    self.port = port
    self.txt = txt
  }

  /// RFC 6763 §7.2 limits service names to 15 characters; real peers publish longer ones
  /// (`_networkplayground` is 17), so longer ones are accepted with a warning.
  public static let recommendedServiceNameLength = 15

  /// The type as a DNS name under `local` (`_switchboard._tcp.local.`).
  /// - Throws: ``DiscoveryError/invalidServiceType``.
  public func typeName() throws(DiscoveryError) -> DNSName {
    let labels = type.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    let trimmed = labels.last == "local" ? Array(labels.dropLast()) : labels
    guard trimmed.count == 2, trimmed[0].hasPrefix("_"), trimmed[0].utf8.count >= 2,
      trimmed[1] == "_tcp" || trimmed[1] == "_udp"
    else {
      throw DiscoveryError.invalidServiceType.with("'\(type)' is not _name._tcp or _name._udp")
    }
    do {
      return try DNSName(labels: trimmed + ["local"])
    } catch {
      throw DiscoveryError.invalidServiceType.with("'\(type)': \(error.message)")
    }
  }

  /// Whether the service name (without `_` and protocol) is over
  /// ``recommendedServiceNameLength``.
  public var hasLongServiceName: Bool {
    guard let first = type.split(separator: ".").first else { return false }
    return first.utf8.count - 1 > Self.recommendedServiceNameLength
  }

  /// The full instance name with `instance` in front of the type.
  /// - Throws: ``DiscoveryError/invalidInstanceName`` or ``DiscoveryError/invalidServiceType``.
  func instanceName(_ instance: String) throws(DiscoveryError) -> DNSName {
    let type = try typeName()
    guard !instance.isEmpty else { throw DiscoveryError.invalidInstanceName.with("empty instance name") }
    do {
      return try type.prepending(instance)
    } catch {
      throw DiscoveryError.invalidInstanceName.with("'\(instance)': \(error.message)")
    }
  }
}
