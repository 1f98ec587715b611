/// A resource record type (RFC 1035 §3.2.2 and later registrations), or a question's QTYPE.
///
/// Any 16-bit value is valid; the named ones are those mDNS/DNS-SD meets. Types the codec does
/// not decode travel as ``DNSRecordData/unknown(_:_:)``.
public struct DNSRecordType: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The type's number on the wire.
  public var rawValue: UInt16

  /// A type from its number.
  public init(rawValue: UInt16) { self.rawValue = rawValue }
  /// A type from its number.
  public init(_ rawValue: UInt16) { self.rawValue = rawValue }

  /// A (1): an IPv4 address.
  public static let a = DNSRecordType(1)
  /// NS (2): a name server.
  public static let ns = DNSRecordType(2)
  /// CNAME (5): an alias.
  public static let cname = DNSRecordType(5)
  /// SOA (6): start of authority.
  public static let soa = DNSRecordType(6)
  /// PTR (12): a pointer to another name; DNS-SD's "service type → instance" record.
  public static let ptr = DNSRecordType(12)
  /// HINFO (13): host information.
  public static let hinfo = DNSRecordType(13)
  /// MX (15): a mail exchanger.
  public static let mx = DNSRecordType(15)
  /// TXT (16): strings; DNS-SD's `key=value` attributes.
  public static let txt = DNSRecordType(16)
  /// RP (17): responsible person.
  public static let rp = DNSRecordType(17)
  /// AFSDB (18): AFS database location.
  public static let afsdb = DNSRecordType(18)
  /// RT (21): route through.
  public static let rt = DNSRecordType(21)
  /// PX (26): X.400 mapping.
  public static let px = DNSRecordType(26)
  /// AAAA (28): an IPv6 address.
  public static let aaaa = DNSRecordType(28)
  /// SRV (33): priority, weight, port and target host of a service instance.
  public static let srv = DNSRecordType(33)
  /// KX (36): key exchanger.
  public static let kx = DNSRecordType(36)
  /// DNAME (39): a subtree alias.
  public static let dname = DNSRecordType(39)
  /// OPT (41): the EDNS(0) pseudo-record.
  public static let opt = DNSRecordType(41)
  /// NSEC (47): in mDNS, "these are all the types this name has" (RFC 6762 §6.1).
  public static let nsec = DNSRecordType(47)
  /// ANY (255): a question for every type (QTYPE only). mDNS probes ask it.
  public static let any = DNSRecordType(255)

  /// Orders by number.
  public static func < (lhs: DNSRecordType, rhs: DNSRecordType) -> Bool { lhs.rawValue < rhs.rawValue }

  private static let names: [UInt16: String] = [
    1: "A", 2: "NS", 5: "CNAME", 6: "SOA", 12: "PTR", 13: "HINFO", 15: "MX", 16: "TXT", 17: "RP",
    18: "AFSDB", 21: "RT", 26: "PX", 28: "AAAA", 33: "SRV", 36: "KX", 39: "DNAME", 41: "OPT", 47: "NSEC",
    255: "ANY",
  ]

  /// The mnemonic (`PTR`), or `TYPE<n>` for others (RFC 3597 §5).
  public var description: String { Self.names[rawValue] ?? "TYPE\(rawValue)" }
}
