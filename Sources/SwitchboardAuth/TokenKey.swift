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

  /// Whether `signature`, as the token carries it, signs `input` with this key.
  func verify(signature: [UInt8], over input: [UInt8]) -> Bool {
    switch material {
    case .secret(let secret):
      let expected = Self.hmacSHA256(key: secret, input)
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

  /// The signature of `input` in the token's form (raw `r || s` for ES256).
  func sign(_ input: [UInt8]) throws(TokenError) -> [UInt8] {
    switch material {
    case .secret(let secret):
      return Self.hmacSHA256(key: secret, input)
    case .openSSL(let key):
      let signature = try key.sign(input)
      guard algorithm == .es256 else { return signature }
      guard let raw = ECDSASignature.raw(fromDER: signature) else {
        throw TokenError.cannotSign.with("ECDSA signature does not convert")
      }
      return raw
    }
  }

  private static func hmacSHA256(key: [UInt8], _ input: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    _ = HMAC(EVP_sha256(), key, Int32(key.count), input, input.count, &digest, &length)
    return Array(digest[..<Int(length)])
  }
}
