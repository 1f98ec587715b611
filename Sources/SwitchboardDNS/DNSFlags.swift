/// The 16 flag bits of a DNS header (RFC 1035 §4.1.1, RFC 2535 for AD/CD).
///
/// ```
///   15  14..11  10  9   8   7   6   5   4   3..0
///   QR  OPCODE  AA  TC  RD  RA  Z   AD  CD  RCODE
/// ```
/// mDNS queries carry all zeros (``query``); responses set QR and AA (``authoritativeResponse``,
/// RFC 6762 §18). The raw value round-trips unchanged, reserved bits included.
public struct DNSFlags: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
  /// The 16 bits as they appear on the wire (big-endian there).
  public var rawValue: UInt16

  /// Flags from their wire value.
  public init(rawValue: UInt16) { self.rawValue = rawValue }

  /// A standard query: every bit zero.
  public static let query = DNSFlags(rawValue: 0)
  /// An authoritative response (QR and AA set), what every mDNS response carries.
  public static let authoritativeResponse = DNSFlags(rawValue: 0x8400)

  private func bit(_ shift: UInt16) -> Bool { rawValue & (1 << shift) != 0 }
  private mutating func set(_ shift: UInt16, _ on: Bool) {
    rawValue = on ? rawValue | (1 << shift) : rawValue & ~(1 << shift)
  }

  /// QR: the message is a response (`false`: a query).
  public var isResponse: Bool {
    get { bit(15) }
    set { set(15, newValue) }
  }
  /// OPCODE, 0...15 (0 is QUERY, the only one mDNS uses); larger values are masked to 4 bits.
  public var opcode: UInt8 {
    get { UInt8((rawValue >> 11) & 0xF) }
    set { rawValue = (rawValue & ~0x7800) | (UInt16(newValue & 0xF) << 11) }
  }
  /// AA: authoritative answer.
  public var isAuthoritative: Bool {
    get { bit(10) }
    set { set(10, newValue) }
  }
  /// TC: truncated. In an mDNS query it means more known answers follow in the next packet
  /// (RFC 6762 §7.2).
  public var isTruncated: Bool {
    get { bit(9) }
    set { set(9, newValue) }
  }
  /// RD: recursion desired.
  public var recursionDesired: Bool {
    get { bit(8) }
    set { set(8, newValue) }
  }
  /// RA: recursion available.
  public var recursionAvailable: Bool {
    get { bit(7) }
    set { set(7, newValue) }
  }
  /// AD: authentic data (RFC 4035).
  public var authenticData: Bool {
    get { bit(5) }
    set { set(5, newValue) }
  }
  /// CD: checking disabled (RFC 4035).
  public var checkingDisabled: Bool {
    get { bit(4) }
    set { set(4, newValue) }
  }
  /// RCODE, 0...15 (0 is NOERROR); larger values are masked to 4 bits.
  public var responseCode: UInt8 {
    get { UInt8(rawValue & 0xF) }
    set { rawValue = (rawValue & ~0xF) | UInt16(newValue & 0xF) }
  }

  /// The set flags by name, e.g. `qr aa opcode=0 rcode=0`.
  public var description: String {
    var parts: [String] = []
    if isResponse { parts.append("qr") }
    if isAuthoritative { parts.append("aa") }
    if isTruncated { parts.append("tc") }
    if recursionDesired { parts.append("rd") }
    if recursionAvailable { parts.append("ra") }
    if authenticData { parts.append("ad") }
    if checkingDisabled { parts.append("cd") }
    parts.append("opcode=\(opcode)")
    parts.append("rcode=\(responseCode)")
    return parts.joined(separator: " ")
  }
}
