/// An IPv6 address: the data of an AAAA record. (A link-local address's scope — which
/// interface it was heard on — is not part of the record; the receiver knows it.)
public struct DNSIPv6Address: Sendable, Hashable, CustomStringConvertible {
  /// The top 64 bits (the first 8 bytes in network order).
  public var high: UInt64
  /// The bottom 64 bits.
  public var low: UInt64

  /// An address from its two halves.
  public init(high: UInt64, low: UInt64) {
    self.high = high
    self.low = low
  }

  /// An address from exactly 16 bytes in network order, or `nil`.
  public init?(bytes: some Collection<UInt8>) {
    guard bytes.count == 16 else { return nil }
    let all = Array(bytes)
    high = all[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
    low = all[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
  }

  /// An address from text (RFC 4291 §2.2: `fe80::1`, `2001:db8:0:0:0:0:0:1`, `::ffff:10.0.0.1`),
  /// or `nil`. A zone suffix (`%eth0`) is not accepted.
  public init?(_ text: String) {
    guard let groups = Self.parseGroups(text) else { return nil }
    let bytes = groups.flatMap { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
    self.init(bytes: bytes)
  }

  /// The 16 bytes in network order.
  public var bytes: [UInt8] {
    stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: high >> UInt64($0)) }
      + stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: low >> UInt64($0)) }
  }

  /// The eight 16-bit groups.
  private var groups: [UInt16] {
    let b = bytes
    return (0..<8).map { UInt16(b[2 * $0]) << 8 | UInt16(b[2 * $0 + 1]) }
  }

  /// RFC 5952 text: lowercase hex, no leading zeros, the longest run of two or more zero
  /// groups (the first of equal runs) as `::`. IPv4-mapped addresses print in hex too (`::ffff:a00:1`).
  public var description: String {
    let groups = self.groups
    var bestStart = -1
    var bestLength = 1
    var index = 0
    while index < 8 {
      guard groups[index] == 0 else {
        index += 1
        continue
      }
      var end = index
      while end < 8 && groups[end] == 0 { end += 1 }
      if end - index > bestLength {
        bestStart = index
        bestLength = end - index
      }
      index = end
    }
    let hex = groups.map { String($0, radix: 16) }
    guard bestStart >= 0 else { return hex.joined(separator: ":") }
    let head = hex[0..<bestStart].joined(separator: ":")
    let tail = hex[(bestStart + bestLength)...].joined(separator: ":")
    return head + "::" + tail
  }

  private static func parseGroups(_ text: String) -> [UInt16]? {
    let halves = text.split(separator: "::", omittingEmptySubsequences: false).map(String.init)
    guard halves.count <= 2, !text.isEmpty else { return nil }
    func parse(_ part: String, allowIPv4Tail: Bool) -> [UInt16]? {
      guard !part.isEmpty else { return [] }
      var result: [UInt16] = []
      let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
      for (index, piece) in pieces.enumerated() {
        if allowIPv4Tail && index == pieces.count - 1 && piece.contains(".") {
          guard let v4 = DNSIPv4Address(String(piece)) else { return nil }
          result += [UInt16(v4.rawValue >> 16), UInt16(truncatingIfNeeded: v4.rawValue)]
        } else {
          guard (1...4).contains(piece.count), piece.allSatisfy(\.isHexDigit),
            let group = UInt16(piece, radix: 16)
          else { return nil }
          result.append(group)
        }
      }
      return result
    }
    if halves.count == 1 {
      guard let groups = parse(halves[0], allowIPv4Tail: true), groups.count == 8 else { return nil }
      return groups
    }
    guard let head = parse(halves[0], allowIPv4Tail: false), let tail = parse(halves[1], allowIPv4Tail: true),
      head.count + tail.count <= 7
    else { return nil }
    return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
  }
}
