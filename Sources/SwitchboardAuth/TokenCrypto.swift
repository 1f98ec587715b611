import SwitchboardIO

/// The one seam between tokens and a crypto library. Everything else in this module
/// (PEM and DER reading, key checks, the ECDSA signature shapes, comparisons) is portable
/// Swift; what is here is a call into a library, one implementation per platform:
///
/// - `TokenCrypto+OpenSSL.swift` where OpenSSL is linked (Linux);
/// - `TokenCrypto+CryptoKit.swift` on Apple platforms: CryptoKit for HS256 and ES256,
///   Security.framework for RS256;
/// - `TokenCrypto+Unavailable.swift` elsewhere (Linux built with `SWITCHBOARD_WITHOUT_OPENSSL=1`):
///   making any key throws ``TokenError/unavailable`` naming the platform.
///
/// Each defines, in an extension of this type:
/// - `static let backendName: String?`, `nil` for none;
/// - `static let hmacSHA256: TokenKey.HMACPrimitive`;
/// - `final class Key: Sendable` with `init(_ material: TokenKeyMaterial, pem: [UInt8]) throws(TokenError)`,
///   `func verify(signature: [UInt8], over input: [UInt8]) -> Bool` and
///   `func sign(_ input: [UInt8]) throws(TokenError) -> [UInt8]`, signatures in the token's form
///   (raw `r || s` for ES256).
enum TokenCrypto {
  /// The refusal every key creation throws where ``TokenSupport/isAvailable`` is `false`.
  static var unavailable: TokenError {
    TokenError.unavailable.with(
      "token signatures need OpenSSL or CryptoKit, and this build on \(BuildPlatform.name) has neither")
  }
}

/// Whether this build can check and make token signatures, and with what.
///
/// On Linux tokens go through OpenSSL; on Apple platforms through CryptoKit (HS256, ES256)
/// and Security.framework (RS256). A build with neither (Linux with
/// `SWITCHBOARD_WITHOUT_OPENSSL=1`) refuses every key with ``TokenError/unavailable``.
public enum TokenSupport {
  /// `true` where ``TokenKey`` can be made.
  public static var isAvailable: Bool { TokenCrypto.backendName != nil }
  /// `"OpenSSL"`, `"CryptoKit and Security"`, or `nil` when there is none.
  public static var backendName: String? { TokenCrypto.backendName }
}
