import COpenSSL

/// ES256 signatures in both shapes: JOSE's raw `r || s` (32 bytes each, big-endian; RFC 7518
/// §3.4) and the DER `SEQUENCE { INTEGER r, INTEGER s }` OpenSSL signs and verifies. The DER
/// side goes through OpenSSL's own `ECDSA_SIG` coder.
enum ECDSASignature {
  /// Bytes of each of `r` and `s` on P-256.
  static let componentLength = 32

  /// DER for a raw 64-byte signature; `nil` for any other length.
  static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
    guard raw.count == 2 * componentLength else { return nil }
    guard let signature = ECDSA_SIG_new() else { return nil }
    defer { ECDSA_SIG_free(signature) }
    guard let r = BN_bin2bn(raw, Int32(componentLength), nil) else { return nil }
    guard
      let s = raw.withUnsafeBufferPointer({
        BN_bin2bn($0.baseAddress! + componentLength, Int32(componentLength), nil)
      })
    else {
      BN_free(r)
      return nil
    }
    guard ECDSA_SIG_set0(signature, r, s) == 1 else {  // on success the signature owns r and s
      BN_free(r)
      BN_free(s)
      return nil
    }
    let length = i2d_ECDSA_SIG(signature, nil)
    guard length > 0 else { return nil }
    var der = [UInt8](repeating: 0, count: Int(length))
    let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
      var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
      return i2d_ECDSA_SIG(signature, &cursor)
    }
    return written == length ? der : nil
  }

  /// The raw 64 bytes for a DER signature; `nil` if it does not decode or a component is too large.
  static func raw(fromDER der: [UInt8]) -> [UInt8]? {
    let decoded: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
      var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
      return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
    }
    guard let decoded else { return nil }
    defer { ECDSA_SIG_free(decoded) }
    var r: OpaquePointer? = nil
    var s: OpaquePointer? = nil
    ECDSA_SIG_get0(decoded, &r, &s)
    guard let r, let s else { return nil }
    var raw = [UInt8](repeating: 0, count: 2 * componentLength)
    let ok = raw.withUnsafeMutableBufferPointer { buffer in
      BN_bn2binpad(r, buffer.baseAddress!, Int32(componentLength)) == Int32(componentLength)
        && BN_bn2binpad(s, buffer.baseAddress! + componentLength, Int32(componentLength))
          == Int32(componentLength)
    }
    return ok ? raw : nil
  }
}
