import SwitchboardDNS

/// The simultaneous-probe tiebreak of RFC 6762 §8.2: two hosts probing for the same name
/// compare their proposed records, and the lexicographically later set wins.
enum MDNSProbeTiebreak {
  /// The outcome, from our side.
  enum Outcome: Sendable, Hashable {
    /// Our records are later: keep probing.
    case won
    /// Their records are later: wait a second and probe again.
    case lost
    /// The same records (our own probe looped back, or an identical twin): no conflict.
    case tie
  }

  /// Compares the sets: each sorted by class, type, then raw uncompressed rdata bytes
  /// (unsigned); the first difference decides, and a set that runs out first loses.
  static func compare(ours: [DNSRecord], theirs: [DNSRecord]) -> Outcome {
    let a = ours.map(Key.init).sorted()
    let b = theirs.map(Key.init).sorted()
    for (x, y) in zip(a, b) where x != y { return x < y ? .lost : .won }
    if a.count == b.count { return .tie }
    return a.count < b.count ? .lost : .won
  }

  private struct Key: Comparable {
    let dnsClass: UInt16
    let type: UInt16
    let rdata: [UInt8]

    init(_ record: DNSRecord) {
      dnsClass = record.dnsClass.rawValue
      type = record.type.rawValue
      rdata = MDNSProbeTiebreak.rawData(record)
    }

    static func < (x: Key, y: Key) -> Bool {
      if x.dnsClass != y.dnsClass { return x.dnsClass < y.dnsClass }
      if x.type != y.type { return x.type < y.type }
      return x.rdata.lexicographicallyPrecedes(y.rdata)
    }
  }

  /// The record's rdata as the wire has it without compression: the record alone in a
  /// message, after the header (12), its owner name, and type/class/TTL/length (10).
  static func rawData(_ record: DNSRecord) -> [UInt8] {
    let bytes = DNSMessage(answers: [record]).encode(compression: .none)
    return Array(bytes[(12 + record.name.wireLength + 10)...])
  }
}
