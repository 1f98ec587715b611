/// The data (rdata) of a resource record, decoded for the types DNS-SD uses.
///
/// Every other type is ``unknown(_:_:)`` and keeps its bytes. For the older types whose rdata
/// holds names that may be compressed (NS, CNAME, SOA, MX, RP, AFSDB, RT, PX, KX, DNAME — the
/// list of RFC 6762 §18.14), the decoder expands those names, so the bytes never hold a
/// pointer into a message they no longer belong to; the encoder writes ``unknown(_:_:)``
/// bytes exactly as given and never compresses inside them.
public enum DNSRecordData: Sendable, Hashable {
  /// A: an IPv4 address (4 bytes).
  case a(DNSIPv4Address)
  /// AAAA: an IPv6 address (16 bytes).
  case aaaa(DNSIPv6Address)
  /// PTR: a name. In DNS-SD, `_switchboard._tcp.local.` → `My Server._switchboard._tcp.local.`.
  case ptr(DNSName)
  /// SRV (RFC 2782): where an instance runs.
  case srv(priority: UInt16, weight: UInt16, port: UInt16, target: DNSName)
  /// TXT: DNS-SD attributes.
  case txt(DNSTXT)
  /// NSEC (RFC 4034 §4): in mDNS (RFC 6762 §6.1) `nextName` is the record's own name and
  /// `types` the types that name has, so a missing type (say AAAA) is known to be absent.
  case nsec(nextName: DNSName, types: Set<DNSRecordType>)
  /// Any other type: its number and rdata bytes, uncompressed. Use it only for types the
  /// decoder does not decode itself (not A, AAAA, PTR, SRV, TXT or NSEC): those would come
  /// back decoded.
  case unknown(DNSRecordType, [UInt8])

  /// The record type this data belongs to.
  public var type: DNSRecordType {
    switch self {
    case .a: .a
    case .aaaa: .aaaa
    case .ptr: .ptr
    case .srv: .srv
    case .txt: .txt
    case .nsec: .nsec
    case .unknown(let type, _): type
    }
  }
}
