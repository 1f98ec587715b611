#if canImport(COpenSSL)
  import COpenSSL

  // Tokens' crypto through OpenSSL (Linux).
  extension TokenCrypto {
    static let backendName: String? = "OpenSSL"

    /// OpenSSL's `HMAC` with SHA-256.
    static let hmacSHA256: TokenKey.HMACPrimitive = { key, input, digest, length in
      HMAC(EVP_sha256(), key, Int32(key.count), input, input.count, &digest, &length) != nil
    }

    /// An OpenSSL `EVP_PKEY` read from the PEM that ``TokenKeyMaterial`` accepted, owned
    /// (freed on deinit): SHA-256 signature checks and signing through
    /// `EVP_DigestVerify`/`EVP_DigestSign`.
    ///
    /// Safety (`@unchecked Sendable`): the key is never modified after it is read, and OpenSSL 3
    /// allows any number of threads to use one `EVP_PKEY` for verification and signing at once
    /// (each call makes its own `EVP_MD_CTX`; only reference counts change, under OpenSSL's locks).
    final class Key: @unchecked Sendable {
      private let pointer: OpaquePointer
      private let material: TokenKeyMaterial

      /// Reads `pem` again with OpenSSL, and checks that OpenSSL sees the key `material`
      /// describes (type and size): the shared reader decides what is accepted, OpenSSL must agree.
      init(_ material: TokenKeyMaterial, pem: [UInt8]) throws(TokenError) {
        defer { ERR_clear_error() }
        let loaded: OpaquePointer? = pem.withUnsafeBytes { raw -> OpaquePointer? in
          guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
          defer { BIO_free(bio) }
          // A callback that supplies no passphrase: OpenSSL's default would prompt on the terminal.
          let noPassphrase:
            @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = {
              _, _, _, _ in -1
            }
          if material.isPrivate { return PEM_read_bio_PrivateKey(bio, nil, noPassphrase, nil) }
          // A public key or a certificate: PEM_read_bio_PUBKEY reads only the former.
          guard (try? PEMBlock.first(in: pem))?.label == "CERTIFICATE" else {
            return PEM_read_bio_PUBKEY(bio, nil, noPassphrase, nil)
          }
          guard let certificate = PEM_read_bio_X509(bio, nil, noPassphrase, nil) else { return nil }
          defer { X509_free(certificate) }
          return X509_get_pubkey(certificate)
        }
        guard let loaded else { throw TokenError.invalidKey.with("PEM does not parse") }
        let agrees: Bool
        switch material {
        case .rsaPublic(_, let bits), .rsaPrivate(_, let bits):
          agrees = EVP_PKEY_get_base_id(loaded) == EVP_PKEY_RSA && Int(EVP_PKEY_get_bits(loaded)) == bits
        case .ecPublic, .ecPrivate:
          var name = [CChar](repeating: 0, count: 64)
          var length = 0
          agrees =
            EVP_PKEY_get_base_id(loaded) == EVP_PKEY_EC
            && EVP_PKEY_get_group_name(loaded, &name, name.count, &length) == 1
            && String(decoding: name[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
        }
        guard agrees else {
          EVP_PKEY_free(loaded)
          throw TokenError.invalidKey.with("OpenSSL reads another key than the PEM describes")
        }
        pointer = loaded
        self.material = material
      }

      deinit { EVP_PKEY_free(pointer) }

      /// Whether `signature` (the token's form) is a SHA-256 signature of `input`.
      func verify(signature: [UInt8], over input: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        var signature = signature
        if material.algorithm == .es256 {
          guard let der = ECDSASignature.der(fromRaw: signature) else { return false }
          signature = der
        }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, input, input.count) == 1
      }

      /// A SHA-256 signature of `input` in the token's form; needs a private key.
      func sign(_ input: [UInt8]) throws(TokenError) -> [UInt8] {
        defer { ERR_clear_error() }
        guard material.isPrivate else { throw TokenError.cannotSign.with("a public key cannot sign") }
        guard let context = EVP_MD_CTX_new() else { throw TokenError.cannotSign.with("out of memory") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1 else {
          throw TokenError.cannotSign.with("EVP_DigestSignInit failed")
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, input, input.count) == 1 else {
          throw TokenError.cannotSign.with("EVP_DigestSign failed")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, input, input.count) == 1 else {
          throw TokenError.cannotSign.with("EVP_DigestSign failed")
        }
        let der = Array(signature[..<length])
        guard material.algorithm == .es256 else { return der }
        guard let raw = ECDSASignature.raw(fromDER: der) else {
          throw TokenError.cannotSign.with("ECDSA signature does not convert")
        }
        return raw
      }
    }
  }
#endif
