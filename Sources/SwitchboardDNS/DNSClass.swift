/// A record class or question class, without mDNS's top bit.
///
/// In mDNS the top bit of the 16-bit class field is not part of the class: in a question it is
/// the QU bit (``DNSQuestion/unicastResponse``), in a record the cache-flush bit
/// (``DNSRecord/cacheFlush``) (RFC 6762 §5.4, §10.2). This type holds the other 15 bits, so a
/// value can never disagree with those flags; the codec splits and joins them on the wire.
/// (No class at or above 0x8000 is in use in unicast DNS either.)
public struct DNSClass: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
  /// The class number, 0...0x7FFF.
  public let rawValue: UInt16

  /// A class from its number; the top bit is dropped (it belongs to the QU/cache-flush flag).
  public init(rawValue: UInt16) { self.rawValue = rawValue & 0x7FFF }

  /// IN (1), the Internet: the class of every mDNS record.
  public static let internet = DNSClass(rawValue: 1)
  /// ANY (255), as a question class.
  public static let any = DNSClass(rawValue: 255)

  /// `IN`, `ANY`, or `CLASS<n>` (RFC 3597 §5).
  public var description: String {
    switch rawValue {
    case 1: "IN"
    case 255: "ANY"
    default: "CLASS\(rawValue)"
    }
  }
}
