import SwitchboardCrypto

/// A key that checks (and perhaps makes) token signatures, with the one algorithm its type
/// allows: a shared secret → HS256, an RSA key → RS256, a P-256 EC key → ES256.
///
/// - Secrets (`--auth-secret`) must be at least ``minimumSecretLength`` bytes (RFC 7518 §3.2:
///   no shorter than the hash). Comparison of HMACs is constant-time.
/// - PEM keys (`--auth-public-key`): a `PUBLIC KEY` (SubjectPublicKeyInfo, what
///   `openssl pkey -pubout` writes), a `CERTIFICATE` (its key is used), or an unencrypted
///   private key (which can also sign). RSA keys need 2,048 bits or more; EC keys must be on
///   P-256. Other key types, curves and encrypted keys are ``TokenError/invalidKey``.
///
/// ``id`` is matched against a token's `kid` header (see ``TokenVerifier``).
///
/// The reading and the checks of keys are portable Swift; the signatures and MACs go through
/// the platform's crypto library (``TokenSupport``). Where there is none, every initialiser
/// throws ``TokenError/unavailable``.
public struct TokenKey: Sendable {
  /// The shortest HS256 secret accepted: 32 bytes.
  public static let minimumSecretLength = 32

  private enum Material: Sendable {
    case secret([UInt8])
    case asymmetric(TokenCrypto.Key, isPrivate: Bool)
  }

  private let material: Material
  /// The key id, matched against a token's `kid`; `nil` for a key that serves any `kid`.
  public let id: String?
  /// The one algorithm this key checks and makes.
  public let algorithm: TokenAlgorithm

  /// An HS256 secret.
  /// - Throws: ``TokenError/invalidKey`` when it is shorter than ``minimumSecretLength``,
  ///   ``TokenError/unavailable`` without a crypto library.
  public init(secret: some Collection<UInt8>, id: String? = nil) throws(TokenError) {
    guard secret.count >= Self.minimumSecretLength else {
      throw TokenError.invalidKey.with(
        "secret of \(secret.count) bytes (at least \(Self.minimumSecretLength) needed)")
    }
    guard TokenSupport.isAvailable else { throw TokenCrypto.unavailable }
    material = .secret(Array(secret))
    self.id = id
    algorithm = .hs256
  }

  /// An RS256 or ES256 key from PEM text (public key, certificate or private key).
  /// - Throws: ``TokenError/invalidKey`` (see the type's rules), ``TokenError/unavailable``
  ///   without a crypto library (after the PEM is read and checked).
  public init(pem: some Collection<UInt8>, id: String? = nil) throws(TokenError) {
    let bytes = Array(pem)
    let read = try TokenKeyMaterial(pem: bytes)
    material = .asymmetric(try TokenCrypto.Key(read, pem: bytes), isPrivate: read.isPrivate)
    self.id = id
    algorithm = read.algorithm
  }

  /// Whether this key can sign: a secret or a private key.
  public var canSign: Bool {
    switch material {
    case .secret: true
    case .asymmetric(_, let isPrivate): isPrivate
    }
  }

  /// Whether `signature`, as the token carries it, signs `input` with this key. An HMAC
  /// that cannot be computed verifies nothing (fail closed: an ignored failure would leave
  /// an empty MAC that an empty signature matches). `hmac` is a seam for the tests.
  func verify(signature: [UInt8], over input: [UInt8], hmac: HMACPrimitive = TokenCrypto.hmacSHA256) -> Bool {
    switch material {
    case .secret(let secret):
      guard let expected = Self.hmacSHA256(key: secret, input, hmac) else { return false }
      return ConstantTime.equal(signature, expected)
    case .asymmetric(let key, _):
      return key.verify(signature: signature, over: input)
    }
  }

  /// The signature of `input` in the token's form (raw `r || s` for ES256). `hmac` is a
  /// seam for the tests.
  func sign(_ input: [UInt8], hmac: HMACPrimitive = TokenCrypto.hmacSHA256) throws(TokenError) -> [UInt8] {
    switch material {
    case .secret(let secret):
      guard let mac = Self.hmacSHA256(key: secret, input, hmac) else {
        throw TokenError.cannotSign.with("HMAC-SHA256 failed")
      }
      return mac
    case .asymmetric(let key, _):
      return try key.sign(input)
    }
  }

  /// The signature of `input` with this key, in the token's form: for harnesses that sign
  /// a header and payload as they are (the token fuzzer), not as ``TokenSigner`` encodes them.
  package func signature(over input: [UInt8]) throws(TokenError) -> [UInt8] { try sign(input) }

  /// The library call behind HMAC-SHA256 (``TokenCrypto``): writes the MAC into `digest`
  /// (32 bytes long) and its length into `length`, and says whether it succeeded. A seam:
  /// OpenSSL's `HMAC` cannot be made to fail from here (it returns `NULL` on an allocation or
  /// provider failure), so the tests pass one that fails.
  typealias HMACPrimitive =
    @Sendable (_ key: [UInt8], _ input: [UInt8], _ digest: inout [UInt8], _ length: inout UInt32) -> Bool

  /// The 32-byte HMAC-SHA256 of `input`, or `nil` when `hmac` failed or wrote another length.
  private static func hmacSHA256(key: [UInt8], _ input: [UInt8], _ hmac: HMACPrimitive) -> [UInt8]? {
    var digest = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    guard hmac(key, input, &digest, &length), length == 32 else { return nil }
    return digest
  }
}
