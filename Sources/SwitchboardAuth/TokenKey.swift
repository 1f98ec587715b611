import COpenSSL

/// A key that checks (and perhaps makes) token signatures, with the one algorithm its type
/// allows: a shared secret → HS256, an RSA key → RS256, a P-256 EC key → ES256.
///
/// - Secrets (`--auth-secret`) must be at least ``minimumSecretLength`` bytes (RFC 7518 §3.2:
///   no shorter than the hash). Comparison of HMACs is constant-time (`CRYPTO_memcmp`).
/// - PEM keys (`--auth-public-key`): a `PUBLIC KEY` (SubjectPublicKeyInfo, what
///   `openssl pkey -pubout` writes), a `CERTIFICATE` (its key is used), or an unencrypted
///   private key (which can also sign). RSA keys need 2,048 bits or more; EC keys must be on
///   P-256. Other key types, curves and encrypted keys are ``TokenError/invalidKey``.
///
/// ``id`` is matched against a token's `kid` header (see ``TokenVerifier``).
public struct TokenKey: Sendable {
  /// The shortest HS256 secret accepted: 32 bytes.
  public static let minimumSecretLength = 32

  private enum Material: Sendable {
    case secret([UInt8])
    case openSSL(OpenSSLKey)
  }

  private let material: Material
  /// The key id, matched against a token's `kid`; `nil` for a key that serves any `kid`.
  public let id: String?
  /// The one algorithm this key checks and makes.
  public let algorithm: TokenAlgorithm

  /// An HS256 secret.
  /// - Throws: ``TokenError/invalidKey`` when it is shorter than ``minimumSecretLength``.
  public init(secret: some Collection<UInt8>, id: String? = nil) throws(TokenError) {
    guard secret.count >= Self.minimumSecretLength else {
      throw TokenError.invalidKey.with(
        "secret of \(secret.count) bytes (at least \(Self.minimumSecretLength) needed)")
    }
    material = .secret(Array(secret))
    self.id = id
    algorithm = .hs256
  }

  /// An RS256 or ES256 key from PEM text (public key, certificate or private key).
  /// - Throws: ``TokenError/invalidKey`` (see the type's rules).
  public init(pem: some Collection<UInt8>, id: String? = nil) throws(TokenError) {
    let key = try OpenSSLKey(pem: Array(pem))
    material = .openSSL(key)
    self.id = id
    switch key.kind {
    case .rsa: algorithm = .rs256
    case .ecP256: algorithm = .es256
    }
  }

  /// Whether this key can sign: a secret or a private key.
  public var canSign: Bool {
    switch material {
    case .secret: true
    case .openSSL(let key): key.isPrivate
    }
  }

  /// Whether `signature`, as the token carries it, signs `input` with this key. An HMAC
  /// that cannot be computed verifies nothing (fail closed: an ignored failure would leave
  /// an empty MAC that an empty signature matches). `hmac` is a seam for the tests.
  func verify(signature: [UInt8], over input: [UInt8], hmac: HMACPrimitive = TokenKey.openSSLHMAC) -> Bool {
    switch material {
    case .secret(let secret):
      guard let expected = Self.hmacSHA256(key: secret, input, hmac) else { return false }
      guard signature.count == expected.count else { return false }
      return CRYPTO_memcmp(signature, expected, expected.count) == 0
    case .openSSL(let key):
      if algorithm == .es256 {
        guard let der = ECDSASignature.der(fromRaw: signature) else { return false }
        return key.verify(signature: der, over: input)
      }
      return key.verify(signature: signature, over: input)
    }
  }

  /// The signature of `input` in the token's form (raw `r || s` for ES256). `hmac` is a
  /// seam for the tests.
  func sign(_ input: [UInt8], hmac: HMACPrimitive = TokenKey.openSSLHMAC) throws(TokenError) -> [UInt8] {
    switch material {
    case .secret(let secret):
      guard let mac = Self.hmacSHA256(key: secret, input, hmac) else {
        throw TokenError.cannotSign.with("HMAC-SHA256 failed")
      }
      return mac
    case .openSSL(let key):
      let signature = try key.sign(input)
      guard algorithm == .es256 else { return signature }
      guard let raw = ECDSASignature.raw(fromDER: signature) else {
        throw TokenError.cannotSign.with("ECDSA signature does not convert")
      }
      return raw
    }
  }

  /// The C call behind HMAC-SHA256: writes the MAC into `digest` (32 bytes long) and its
  /// length into `length`, and says whether it succeeded. A seam: OpenSSL's `HMAC` cannot be
  /// made to fail from here (it returns `NULL` on an allocation or provider failure), so the
  /// tests pass one that fails.
  typealias HMACPrimitive =
    @Sendable (_ key: [UInt8], _ input: [UInt8], _ digest: inout [UInt8], _ length: inout UInt32) -> Bool

  /// OpenSSL's `HMAC` with SHA-256.
  static let openSSLHMAC: HMACPrimitive = { key, input, digest, length in
    HMAC(EVP_sha256(), key, Int32(key.count), input, input.count, &digest, &length) != nil
  }

  /// The 32-byte HMAC-SHA256 of `input`, or `nil` when `hmac` failed or wrote another length.
  private static func hmacSHA256(key: [UInt8], _ input: [UInt8], _ hmac: HMACPrimitive) -> [UInt8]? {
    var digest = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    guard hmac(key, input, &digest, &length), length == 32 else { return nil }
    return digest
  }
}
