import SwitchboardCrypto

/// What a PEM key file holds, in the forms the crypto backends take, after every check that
/// needs no crypto library: the PEM armour, the DER structure (SubjectPublicKeyInfo,
/// certificate, PKCS#1, PKCS#8, SEC1), the key type, the RSA modulus size, the curve.
///
/// Each backend gets what it wants without parsing anything itself: Security.framework the
/// PKCS#1 bytes of an RSA key, CryptoKit the uncompressed P-256 point or the private scalar,
/// OpenSSL the PEM text (this value's checks still decide what is accepted).
enum TokenKeyMaterial: Equatable {
  /// An RSA public key: PKCS#1 `RSAPublicKey` DER, and its modulus size.
  case rsaPublic(pkcs1: [UInt8], bits: Int)
  /// An RSA private key: PKCS#1 `RSAPrivateKey` DER, and its modulus size.
  case rsaPrivate(pkcs1: [UInt8], bits: Int)
  /// A P-256 public key: the uncompressed point `04 || X || Y` (65 bytes, ANSI X9.63).
  case ecPublic(x963: [UInt8])
  /// A P-256 private key: the 32-byte scalar.
  case ecPrivate(scalar: [UInt8])

  /// The smallest RSA modulus accepted.
  static let minimumRSABits = 2048
  /// Bytes of a P-256 coordinate or scalar.
  static let p256Length = 32

  /// The algorithm the key serves.
  var algorithm: TokenAlgorithm {
    switch self {
    case .rsaPublic, .rsaPrivate: .rs256
    case .ecPublic, .ecPrivate: .es256
    }
  }

  /// Whether the key can sign.
  var isPrivate: Bool {
    switch self {
    case .rsaPrivate, .ecPrivate: true
    case .rsaPublic, .ecPublic: false
    }
  }

  /// Reads the first PEM block of `pem`: a `PUBLIC KEY` (SubjectPublicKeyInfo), a
  /// `CERTIFICATE` (its public key), or an unencrypted private key (`PRIVATE KEY` = PKCS#8,
  /// `RSA PRIVATE KEY` = PKCS#1, `EC PRIVATE KEY` = SEC1). RSA of 2,048 bits or more, EC on
  /// P-256 only.
  /// - Throws: ``TokenError/invalidKey`` saying what is wrong.
  init(pem: some Collection<UInt8>) throws(TokenError) {
    let block = try PEMBlock.first(in: pem)
    let label = block.label
    if label == "ENCRYPTED PRIVATE KEY" || block.isEncrypted {
      throw TokenError.invalidKey.with("encrypted private keys are not supported")
    }
    do {
      switch label {
      case "PUBLIC KEY": self = try Self.subjectPublicKeyInfo(block.der[...])
      case "CERTIFICATE": self = try Self.certificate(block.der)
      case "PRIVATE KEY": self = try Self.pkcs8(block.der)
      case "RSA PRIVATE KEY": self = try Self.rsaPrivateKey(block.der[...])
      case "EC PRIVATE KEY": self = try Self.ecPrivateKey(block.der[...], curveFromAlgorithm: nil)
      default:
        throw TokenError.invalidKey.with("PEM \(label) is not a public key, certificate or private key")
      }
    } catch let error as DERError {
      throw TokenError.invalidKey.with("PEM \(label) does not parse (\(error))")
    } catch let error as TokenError {
      throw error
    } catch {
      throw TokenError.invalidKey.with("PEM \(label) does not parse")
    }
  }

  // MARK: Structures

  /// SubjectPublicKeyInfo ::= SEQUENCE { AlgorithmIdentifier, BIT STRING }.
  private static func subjectPublicKeyInfo(_ der: ArraySlice<UInt8>) throws -> TokenKeyMaterial {
    var outer = DERReader(der)
    var info = try outer.readSequence()
    try outer.expectEnd()
    let (algorithm, curve) = try algorithmIdentifier(&info)
    let key = try info.readBitString()
    try info.expectEnd()
    switch algorithm {
    case DERObjectID.rsaEncryption[...]:
      return .rsaPublic(pkcs1: Array(key), bits: try rsaPublicKeyBits(key))
    case DERObjectID.ecPublicKey[...]:
      try requireP256(curve)
      return .ecPublic(x963: try p256Point(key))
    default:
      throw unsupportedType
    }
  }

  /// A certificate's key: its SubjectPublicKeyInfo (``DERReader/subjectPublicKeyInfo(ofCertificate:)``).
  private static func certificate(_ der: [UInt8]) throws -> TokenKeyMaterial {
    try subjectPublicKeyInfo(try DERReader.subjectPublicKeyInfo(ofCertificate: der))
  }

  /// PrivateKeyInfo ::= SEQUENCE { version, AlgorithmIdentifier, OCTET STRING privateKey, … }.
  private static func pkcs8(_ der: [UInt8]) throws -> TokenKeyMaterial {
    var outer = DERReader(der)
    var info = try outer.readSequence()
    try outer.expectEnd()
    guard try info.readSmallInteger() <= 1 else { throw DERError("unknown PKCS#8 version") }
    let (algorithm, curve) = try algorithmIdentifier(&info)
    let key = try info.read(DERReader.Tag.octetString).contents
    switch algorithm {
    case DERObjectID.rsaEncryption[...]:
      return try rsaPrivateKey(key)
    case DERObjectID.ecPublicKey[...]:
      try requireP256(curve)
      return try ecPrivateKey(key, curveFromAlgorithm: curve)
    default:
      throw unsupportedType
    }
  }

  /// RSAPrivateKey ::= SEQUENCE { version, modulus, publicExponent, privateExponent, … }.
  private static func rsaPrivateKey(_ der: ArraySlice<UInt8>) throws -> TokenKeyMaterial {
    var outer = DERReader(der)
    var key = try outer.readSequence()
    try outer.expectEnd()
    guard try key.readSmallInteger() == 0 else { throw DERError("multi-prime RSA keys are not supported") }
    let bits = try checkedRSABits(try key.readUnsignedInteger())
    for _ in 0..<6 { _ = try key.readUnsignedInteger() }  // e, d, p, q, dp, dq
    _ = try key.readUnsignedInteger()  // qinv
    try key.expectEnd()
    return .rsaPrivate(pkcs1: Array(der), bits: bits)
  }

  /// ECPrivateKey ::= SEQUENCE { version 1, OCTET STRING privateKey, [0] parameters OPTIONAL,
  /// [1] publicKey OPTIONAL } (SEC1, RFC 5915). The curve comes from `[0]` or, in PKCS#8,
  /// from the algorithm identifier; one of them must name P-256.
  private static func ecPrivateKey(_ der: ArraySlice<UInt8>, curveFromAlgorithm: ArraySlice<UInt8>?) throws
    -> TokenKeyMaterial
  {
    var outer = DERReader(der)
    var key = try outer.readSequence()
    try outer.expectEnd()
    guard try key.readSmallInteger() == 1 else { throw DERError("unknown ECPrivateKey version") }
    let scalar = try key.read(DERReader.Tag.octetString).contents
    var curve = curveFromAlgorithm
    if let parameters = try key.readIfPresent(DERReader.Tag.context(0)) {
      var reader = parameters.reader
      curve = try reader.readObjectIdentifier()
      try reader.expectEnd()
    }
    try requireP256(curve)
    if let publicKey = try key.readIfPresent(DERReader.Tag.context(1)) {
      var reader = publicKey.reader
      _ = try p256Point(try reader.readBitString())
      try reader.expectEnd()
    }
    try key.expectEnd()
    guard !scalar.isEmpty, scalar.count <= p256Length else {
      throw DERError("P-256 private key of \(scalar.count) bytes")
    }
    return .ecPrivate(scalar: [UInt8](repeating: 0, count: p256Length - scalar.count) + scalar)
  }

  // MARK: Pieces

  /// AlgorithmIdentifier ::= SEQUENCE { OID, parameters }: the OID, and the curve OID when
  /// the parameters are one (EC keys).
  private static func algorithmIdentifier(_ reader: inout DERReader) throws
    -> (ArraySlice<UInt8>, ArraySlice<UInt8>?)
  {
    var identifier = try reader.readSequence()
    let algorithm = try identifier.readObjectIdentifier()
    var curve: ArraySlice<UInt8>?
    if identifier.nextTag == DERReader.Tag.objectIdentifier {
      curve = try identifier.readObjectIdentifier()
    } else if identifier.nextTag != nil {
      _ = try identifier.read()  // NULL for RSA; anything else fails the type checks
    }
    try identifier.expectEnd()
    return (algorithm, curve)
  }

  /// RSAPublicKey ::= SEQUENCE { modulus, publicExponent }: the modulus size, checked.
  private static func rsaPublicKeyBits(_ der: ArraySlice<UInt8>) throws -> Int {
    var outer = DERReader(der)
    var key = try outer.readSequence()
    try outer.expectEnd()
    let bits = try checkedRSABits(try key.readUnsignedInteger())
    guard try !key.readUnsignedInteger().isEmpty else { throw DERError("empty RSA exponent") }
    try key.expectEnd()
    return bits
  }

  private static func checkedRSABits(_ modulus: ArraySlice<UInt8>) throws -> Int {
    guard let first = modulus.first, first != 0 else { throw DERError("RSA modulus is zero") }
    let bits = (modulus.count - 1) * 8 + (8 - first.leadingZeroBitCount)
    guard bits >= minimumRSABits else {
      throw TokenError.invalidKey.with("RSA key of \(bits) bits (at least \(minimumRSABits) needed)")
    }
    return bits
  }

  private static func requireP256(_ curve: ArraySlice<UInt8>?) throws {
    guard let curve, curve.elementsEqual(DERObjectID.prime256v1) else {
      throw TokenError.invalidKey.with("EC key not on P-256 (ES256 needs prime256v1)")
    }
  }

  /// An uncompressed P-256 point, `04 || X || Y`.
  private static func p256Point(_ bytes: ArraySlice<UInt8>) throws -> [UInt8] {
    guard bytes.count == 1 + 2 * p256Length, bytes.first == 0x04 else {
      throw DERError("not an uncompressed P-256 point (\(bytes.count) bytes)")
    }
    return Array(bytes)
  }

  private static var unsupportedType: TokenError {
    TokenError.invalidKey.with("key type is neither RSA nor EC")
  }
}
