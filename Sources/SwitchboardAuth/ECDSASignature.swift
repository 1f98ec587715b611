import SwitchboardCrypto

/// ES256 signatures in both shapes: JOSE's raw `r || s` (32 bytes each, big-endian; RFC 7518
/// §3.4) and the DER `SEQUENCE { INTEGER r, INTEGER s }` OpenSSL signs and verifies.
/// Portable Swift (``DERReader`` one way, a few bytes of DER the other), so it is the same
/// code, and tested, wherever it is used.
enum ECDSASignature {
  /// Bytes of each of `r` and `s` on P-256.
  static let componentLength = 32

  /// DER for a raw 64-byte signature; `nil` for any other length.
  static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
    guard raw.count == 2 * componentLength else { return nil }
    let body = integer(raw[..<componentLength]) + integer(raw[componentLength...])
    // At most 2 × (2 + 33) = 70 bytes: the short length form always fits.
    return [DERReader.Tag.sequence, UInt8(body.count)] + body
  }

  /// The raw 64 bytes for a DER signature; `nil` if it does not decode or a component is too large.
  static func raw(fromDER der: [UInt8]) -> [UInt8]? {
    var outer = DERReader(der)
    guard var sequence = try? outer.readSequence(), outer.isAtEnd,
      let r = try? sequence.readUnsignedInteger(), let s = try? sequence.readUnsignedInteger(),
      sequence.isAtEnd,
      r.count <= componentLength, s.count <= componentLength
    else { return nil }
    return padded(r) + padded(s)
  }

  /// A minimal DER INTEGER for the unsigned big-endian `magnitude`.
  private static func integer(_ magnitude: ArraySlice<UInt8>) -> [UInt8] {
    var bytes = Array(magnitude.drop { $0 == 0 })
    if bytes.isEmpty || bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
    return [DERReader.Tag.integer, UInt8(bytes.count)] + bytes
  }

  private static func padded(_ magnitude: ArraySlice<UInt8>) -> [UInt8] {
    [UInt8](repeating: 0, count: componentLength - magnitude.count) + magnitude
  }
}
