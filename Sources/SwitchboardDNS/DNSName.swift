/// A domain name: a sequence of labels, each 1...63 arbitrary bytes, at most 255 bytes in
/// wire form (RFC 1035 §2.3.4, §3.1).
///
/// Labels are bytes, not text: a DNS-SD instance name such as `Living Room.v2 ☕` is one
/// label that may hold spaces, dots and any UTF-8 (RFC 6763 §4.1.1). Every initializer checks
/// the limits, so a `DNSName` always fits on the wire.
///
/// Equality and hashing ignore ASCII case (`A`–`Z` = `a`–`z`) and nothing else: RFC 1035 §2.3.3
/// and RFC 6762 §16 compare names case-insensitively for ASCII only; other bytes (UTF-8
/// included) compare exactly. The original case is kept.
///
/// Text forms (`DNSName+Text.swift`): ``init(_:)`` parses `a\.b.local.` style escapes and
/// ``description`` prints them; ``formatted(_:)`` also offers avahi's `\032` style.
public struct DNSName: Sendable, Hashable, CustomStringConvertible {
  /// Length-prefixed labels as on the wire, without the final zero (the root label).
  /// Length bytes are 1...63, so ASCII case folding never touches them.
  let wire: [UInt8]

  /// Longest label, in bytes.
  public static let maxLabelLength = 63
  /// Longest name in wire form, in bytes: every label with its length byte, plus the root byte.
  public static let maxWireLength = 255

  /// The root name (no labels), written `.`.
  public static let root = DNSName(uncheckedWire: [])

  /// A name from wire bytes already checked by the caller (the decoder).
  init(uncheckedWire wire: [UInt8]) { self.wire = wire }

  /// A name from its labels (bytes), most specific first.
  /// - Throws: ``DNSError/labelTooLong`` for a label over 63 bytes, ``DNSError/invalidName``
  ///   for an empty label, ``DNSError/nameTooLong`` past 255 bytes in wire form.
  public init(labels: [[UInt8]]) throws(DNSError) {
    var wire: [UInt8] = []
    for label in labels {
      guard !label.isEmpty else { throw DNSError.invalidName.with("empty label") }
      guard label.count <= Self.maxLabelLength else {
        throw DNSError.labelTooLong.with("label of \(label.count) bytes (the limit is 63)")
      }
      wire.append(UInt8(label.count))
      wire += label
    }
    guard wire.count + 1 <= Self.maxWireLength else {
      throw DNSError.nameTooLong.with("name of \(wire.count + 1) bytes (the limit is 255)")
    }
    self.wire = wire
  }

  /// A name from its labels as text (each label's UTF-8 bytes, taken literally: no escapes).
  /// - Throws: as ``init(labels:)-([[UInt8]])``.
  public init(labels: [String]) throws(DNSError) {
    try self.init(labels: labels.map { Array($0.utf8) })
  }

  /// The labels, most specific first, without the root.
  public var labels: [[UInt8]] {
    var result: [[UInt8]] = []
    var index = 0
    while index < wire.count {
      let length = Int(wire[index])
      result.append(Array(wire[index + 1..<index + 1 + length]))
      index += 1 + length
    }
    return result
  }

  /// How many labels the name has (0 for the root).
  public var labelCount: Int {
    var count = 0
    var index = 0
    while index < wire.count {
      count += 1
      index += 1 + Int(wire[index])
    }
    return count
  }

  /// Whether this is the root name.
  public var isRoot: Bool { wire.isEmpty }

  /// The length in uncompressed wire form, root byte included (1...255).
  public var wireLength: Int { wire.count + 1 }

  /// This name with `label` in front (an instance label before a service type).
  /// - Throws: as ``init(labels:)-([[UInt8]])``.
  public func prepending(_ label: [UInt8]) throws(DNSError) -> DNSName {
    guard !label.isEmpty else { throw DNSError.invalidName.with("empty label") }
    guard label.count <= Self.maxLabelLength else {
      throw DNSError.labelTooLong.with("label of \(label.count) bytes (the limit is 63)")
    }
    return try Self.checked([UInt8(label.count)] + label + wire)
  }

  /// This name with `label` (its UTF-8 bytes, literally) in front.
  /// - Throws: as ``init(labels:)-([[UInt8]])``.
  public func prepending(_ label: String) throws(DNSError) -> DNSName { try prepending(Array(label.utf8)) }

  /// This name followed by `suffix` (`_switchboard._tcp` + `local`).
  /// - Throws: ``DNSError/nameTooLong`` past 255 bytes.
  public func appending(_ suffix: DNSName) throws(DNSError) -> DNSName {
    try Self.checked(wire + suffix.wire)
  }

  private static func checked(_ combined: [UInt8]) throws(DNSError) -> DNSName {
    guard combined.count + 1 <= maxWireLength else {
      throw DNSError.nameTooLong.with("name of \(combined.count + 1) bytes (the limit is 255)")
    }
    return DNSName(uncheckedWire: combined)
  }

  /// Whether the name ends with `suffix`'s labels (ASCII case ignored): `a._tcp.local` ends
  /// with `local` and with `_tcp.local`, not with `cal`.
  public func hasSuffix(_ suffix: DNSName) -> Bool {
    guard suffix.wire.count <= wire.count else { return false }
    let start = wire.count - suffix.wire.count
    // `start` must be a label boundary of this name.
    var index = 0
    while index < start { index += 1 + Int(wire[index]) }
    guard index == start else { return false }
    return Self.equalFolded(wire[start...], suffix.wire[...])
  }

  static func fold(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }

  static func equalFolded(_ lhs: ArraySlice<UInt8>, _ rhs: ArraySlice<UInt8>) -> Bool {
    guard lhs.count == rhs.count else { return false }
    return zip(lhs, rhs).allSatisfy { fold($0) == fold($1) }
  }

  /// Names are equal when their labels are, ignoring ASCII case.
  public static func == (lhs: DNSName, rhs: DNSName) -> Bool { equalFolded(lhs.wire[...], rhs.wire[...]) }

  /// Hashes the ASCII-lowercased labels, consistent with `==`.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(wire.count)
    for byte in wire { hasher.combine(Self.fold(byte)) }
  }
}
