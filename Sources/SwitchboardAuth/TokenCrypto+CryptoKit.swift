#if !canImport(COpenSSL) && canImport(CryptoKit)
  import CryptoKit
  import Foundation
  import Security

  // Tokens' crypto on Apple platforms: CryptoKit for HS256 and ES256, Security.framework for
  // RS256 (CryptoKit has no RSA). Never compiled on Linux: it only hands the system the forms
  // TokenKeyMaterial already read and checked.
  extension TokenCrypto {
    static let backendName: String? = "CryptoKit and Security"

    /// CryptoKit's `HMAC<SHA256>`; it cannot fail.
    static let hmacSHA256: TokenKey.HMACPrimitive = { key, input, digest, length in
      let mac = Array(HMAC<SHA256>.authenticationCode(for: input, using: SymmetricKey(data: key)))
      digest = mac
      length = UInt32(mac.count)
      return true
    }

    /// A system key: a `SecKey` for RSA, a CryptoKit key for P-256.
    ///
    /// Safety (`@unchecked Sendable`): the keys are immutable after `init`; a `SecKey` may be
    /// used from any thread, and CryptoKit's keys are values.
    final class Key: @unchecked Sendable {
      private enum System {
        case rsa(SecKey)
        case ecPublic(P256.Signing.PublicKey)
        case ecPrivate(P256.Signing.PrivateKey)
      }

      private let system: System
      private let isPrivate: Bool

      init(_ material: TokenKeyMaterial, pem: [UInt8]) throws(TokenError) {
        isPrivate = material.isPrivate
        do {
          switch material {
          case .rsaPublic(let pkcs1, _):
            system = .rsa(try Self.secKey(pkcs1, keyClass: kSecAttrKeyClassPublic))
          case .rsaPrivate(let pkcs1, _):
            system = .rsa(try Self.secKey(pkcs1, keyClass: kSecAttrKeyClassPrivate))
          case .ecPublic(let x963):
            system = .ecPublic(try P256.Signing.PublicKey(x963Representation: x963))
          case .ecPrivate(let scalar):
            system = .ecPrivate(try P256.Signing.PrivateKey(rawRepresentation: scalar))
          }
        } catch let error as TokenError {
          throw error
        } catch {
          throw TokenError.invalidKey.with("the system refuses the key: \(error)")
        }
      }

      /// Whether `signature` (the token's form) is a SHA-256 signature of `input`.
      func verify(signature: [UInt8], over input: [UInt8]) -> Bool {
        switch system {
        case .rsa(let key):
          let publicKey: SecKey? = isPrivate ? SecKeyCopyPublicKey(key) : key
          guard let publicKey else { return false }
          return SecKeyVerifySignature(
            publicKey, .rsaSignatureMessagePKCS1v15SHA256, Data(input) as CFData, Data(signature) as CFData,
            nil)
        case .ecPublic(let key):
          guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else {
            return false
          }
          return key.isValidSignature(ecdsa, for: input)
        case .ecPrivate(let key):
          guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else {
            return false
          }
          return key.publicKey.isValidSignature(ecdsa, for: input)
        }
      }

      /// A SHA-256 signature of `input` in the token's form; needs a private key.
      func sign(_ input: [UInt8]) throws(TokenError) -> [UInt8] {
        guard isPrivate else { throw TokenError.cannotSign.with("a public key cannot sign") }
        switch system {
        case .rsa(let key):
          var error: Unmanaged<CFError>?
          guard
            let signature = SecKeyCreateSignature(
              key, .rsaSignatureMessagePKCS1v15SHA256, Data(input) as CFData, &error) as Data?
          else {
            let reason = String(describing: error?.takeRetainedValue())
            throw TokenError.cannotSign.with("SecKeyCreateSignature failed: \(reason)")
          }
          return Array(signature)
        case .ecPrivate(let key):
          guard let signature = try? key.signature(for: input) else {
            throw TokenError.cannotSign.with("P-256 signing failed")
          }
          return Array(signature.rawRepresentation)
        case .ecPublic:
          throw TokenError.cannotSign.with("a public key cannot sign")
        }
      }

      /// An RSA `SecKey` from PKCS#1 DER (what `SecKeyCreateWithData` takes for RSA).
      private static func secKey(_ pkcs1: [UInt8], keyClass: CFString) throws(TokenError) -> SecKey {
        let attributes: [CFString: Any] = [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: keyClass]
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateWithData(Data(pkcs1) as CFData, attributes as CFDictionary, &error) else {
          throw TokenError.invalidKey.with(
            "Security refuses the RSA key: \(String(describing: error?.takeRetainedValue()))")
        }
        return key
      }
    }
  }
#endif
