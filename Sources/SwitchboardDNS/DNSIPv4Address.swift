/// An IPv4 address: the data of an A record.
public struct DNSIPv4Address: Sendable, Hashable, CustomStringConvertible {
  /// The address as a number, first octet in the top byte (`10.0.0.1` is `0x0A00_0001`).
  public var rawValue: UInt32

  /// An address from its number (first octet in the top byte).
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  /// An address from its four octets, `DNSIPv4Address(10, 77, 0, 1)`.
  public init(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
    rawValue = UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d)
  }

  /// An address from exactly four bytes in network order, or `nil`.
  public init?(bytes: some Collection<UInt8>) {
    guard bytes.count == 4 else { return nil }
    rawValue = bytes.reduce(0) { $0 << 8 | UInt32($1) }
  }

  /// An address from dotted-quad text (`192.168.1.20`), or `nil`.
  public init?(_ text: String) {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 4 else { return nil }
    var value: UInt32 = 0
    for part in parts {
      guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), let octet = UInt8(part) else {
        return nil
      }
      value = value << 8 | UInt32(octet)
    }
    rawValue = value
  }

  /// The four octets in network order.
  public var bytes: [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: rawValue >> $0) } }

  /// Dotted-quad text.
  public var description: String { bytes.map(String.init).joined(separator: ".") }
}
