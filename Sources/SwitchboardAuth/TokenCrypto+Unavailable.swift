#if !canImport(COpenSSL) && !canImport(CryptoKit)
  // No crypto library in this build: every key is refused when it is made, naming the
  // platform, so that a server configured with one stops at startup instead of refusing
  // every token later.
  extension TokenCrypto {
    static let backendName: String? = nil

    /// Fails: there is no HMAC here (never called, since no secret key can be made).
    static let hmacSHA256: TokenKey.HMACPrimitive = { _, _, _, _ in false }

    /// No key can be made.
    final class Key: Sendable {
      /// Never evaluated: every initialiser throws, so no instance exists to reach it.
      private var impossible: Never { fatalError("no key exists in a build without a crypto library") }

      init(_ material: TokenKeyMaterial, pem: [UInt8]) throws(TokenError) { throw TokenCrypto.unavailable }

      func verify(signature: [UInt8], over input: [UInt8]) -> Bool { impossible }

      func sign(_ input: [UInt8]) throws(TokenError) -> [UInt8] { impossible }
    }
  }
#endif
