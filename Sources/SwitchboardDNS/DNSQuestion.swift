/// An entry of the question section (RFC 1035 §4.1.2).
public struct DNSQuestion: Sendable, Hashable, CustomStringConvertible {
  /// The name asked about.
  public var name: DNSName
  /// The type asked for (``DNSRecordType/any`` for every type).
  public var type: DNSRecordType
  /// The class asked for (IN for mDNS), without the QU bit.
  public var dnsClass: DNSClass
  /// mDNS's QU bit, the top bit of the class field (RFC 6762 §5.4): the asker would like a
  /// unicast answer. Without it the question is QM (multicast answer).
  public var unicastResponse: Bool

  /// A question; class IN and QM unless given.
  public init(
    name: DNSName, type: DNSRecordType, unicastResponse: Bool = false, dnsClass: DNSClass = .internet
  ) {
    self.name = name
    self.type = type
    self.dnsClass = dnsClass
    self.unicastResponse = unicastResponse
  }

  /// `name class type`, with ` QU` when the QU bit is set.
  public var description: String { "\(name) \(dnsClass) \(type)\(unicastResponse ? " QU" : "")" }
}
