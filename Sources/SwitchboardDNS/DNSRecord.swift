/// A resource record of an answer, authority or additional section (RFC 1035 §4.1.3).
///
/// The record's type is its data's (``type``), so the two cannot disagree.
public struct DNSRecord: Sendable, Hashable, CustomStringConvertible {
  /// The owner name.
  public var name: DNSName
  /// The class (IN for mDNS), without the cache-flush bit.
  public var dnsClass: DNSClass
  /// mDNS's cache-flush bit, the top bit of the class field (RFC 6762 §10.2): this record
  /// replaces every cached record of the same name, type and class. Set on unique records
  /// (SRV, TXT, A, AAAA, NSEC), never on shared ones (a DNS-SD PTR).
  public var cacheFlush: Bool
  /// Time to live, in seconds. 0 in mDNS is a goodbye: remove the record (RFC 6762 §10.1).
  public var ttl: UInt32
  /// The data, which also fixes the type.
  public var rdata: DNSRecordData

  /// The record type (from ``rdata``).
  public var type: DNSRecordType { rdata.type }

  /// A record; class IN and no cache-flush bit unless given.
  public init(
    name: DNSName, ttl: UInt32, rdata: DNSRecordData, cacheFlush: Bool = false, dnsClass: DNSClass = .internet
  ) {
    self.name = name
    self.dnsClass = dnsClass
    self.cacheFlush = cacheFlush
    self.ttl = ttl
    self.rdata = rdata
  }

  /// One line in the style of a zone file: `name ttl [flush] class type data`.
  public var description: String {
    let data: String
    switch rdata {
    case .a(let address): data = address.description
    case .aaaa(let address): data = address.description
    case .ptr(let target): data = target.description
    case .srv(let priority, let weight, let port, let target):
      data = "\(priority) \(weight) \(port) \(target)"
    case .txt(let txt): data = txt.isEmpty ? "\"\"" : txt.description
    case .nsec(let next, let types):
      data = ([next.description] + types.sorted().map(\.description)).joined(separator: " ")
    case .unknown(_, let bytes):
      // RFC 3597 §5: \# length hex
      data = "\\# \(bytes.count)" + (bytes.isEmpty ? "" : " " + bytes.map { hex($0) }.joined())
    }
    return "\(name) \(ttl)\(cacheFlush ? " flush" : "") \(dnsClass) \(type) \(data)"
  }

  private func hex(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16)
    return digits.count == 1 ? "0" + digits : digits
  }
}
