import COpenSSL

/// An OpenSSL `EVP_PKEY` read from PEM, owned (freed on deinit), and the three operations
/// tokens need from it: HMAC is elsewhere; here are signature checks and signing with
/// SHA-256 through `EVP_DigestVerify`/`EVP_DigestSign`.
///
/// Safety (`@unchecked Sendable`): the key is never modified after it is read, and OpenSSL 3
/// allows any number of threads to use one `EVP_PKEY` for verification and signing at once
/// (each call makes its own `EVP_MD_CTX`; only reference counts change, under OpenSSL's locks).
final class OpenSSLKey: @unchecked Sendable {
  /// What a PEM held.
  enum Kind: Equatable {
    case rsa(bits: Int)
    case ecP256
  }

  let pointer: OpaquePointer
  let kind: Kind
  let isPrivate: Bool

  /// Reads the first PEM block of `pem`: a `PUBLIC KEY` (SubjectPublicKeyInfo), a
  /// `CERTIFICATE` (its public key is used) or a private key (`PRIVATE KEY`, `RSA PRIVATE
  /// KEY`, `EC PRIVATE KEY`; not encrypted). Only RSA of 2,048 bits or more and EC on P-256.
  init(pem: [UInt8]) throws(TokenError) {
    defer { ERR_clear_error() }
    guard let text = String(validating: pem, as: UTF8.self), let label = Self.firstLabel(text) else {
      throw TokenError.invalidKey.with("not a PEM file")
    }
    let isPrivate = label.hasSuffix("PRIVATE KEY")
    guard isPrivate || label == "PUBLIC KEY" || label == "CERTIFICATE" else {
      throw TokenError.invalidKey.with("PEM \(label) is not a public key, certificate or private key")
    }
    if label == "ENCRYPTED PRIVATE KEY" || text.contains("Proc-Type: 4,ENCRYPTED") {
      throw TokenError.invalidKey.with("encrypted private keys are not supported")
    }
    let loaded: OpaquePointer? = pem.withUnsafeBytes { raw -> OpaquePointer? in
      guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
      defer { BIO_free(bio) }
      // A callback that supplies no passphrase: OpenSSL's default would prompt on the terminal.
      let noPassphrase:
        @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = {
          _, _, _, _ in -1
        }
      switch label {
      case "PUBLIC KEY":
        return PEM_read_bio_PUBKEY(bio, nil, noPassphrase, nil)
      case "CERTIFICATE":
        guard let certificate = PEM_read_bio_X509(bio, nil, noPassphrase, nil) else { return nil }
        defer { X509_free(certificate) }
        return X509_get_pubkey(certificate)
      default:
        return PEM_read_bio_PrivateKey(bio, nil, noPassphrase, nil)
      }
    }
    guard let loaded else { throw TokenError.invalidKey.with("PEM \(label) does not parse") }
    switch EVP_PKEY_get_base_id(loaded) {
    case EVP_PKEY_RSA:
      let bits = Int(EVP_PKEY_get_bits(loaded))
      guard bits >= 2048 else {
        EVP_PKEY_free(loaded)
        throw TokenError.invalidKey.with("RSA key of \(bits) bits (at least 2048 needed)")
      }
      kind = .rsa(bits: bits)
    case EVP_PKEY_EC:
      var name = [CChar](repeating: 0, count: 64)
      var length = 0
      guard EVP_PKEY_get_group_name(loaded, &name, name.count, &length) == 1,
        String(decoding: name[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
      else {
        EVP_PKEY_free(loaded)
        throw TokenError.invalidKey.with("EC key not on P-256 (ES256 needs prime256v1)")
      }
      kind = .ecP256
    default:
      EVP_PKEY_free(loaded)
      throw TokenError.invalidKey.with("key type is neither RSA nor EC")
    }
    pointer = loaded
    self.isPrivate = isPrivate
  }

  deinit { EVP_PKEY_free(pointer) }

  /// The label of the first `-----BEGIN …-----` line, past any `EC PARAMETERS` block
  /// (`openssl ecparam -genkey` writes one before the key).
  private static func firstLabel(_ text: String) -> String? {
    var rest = Substring(text)
    while let begin = rest.firstRange(of: "-----BEGIN ") {
      rest = rest[begin.upperBound...]
      guard let end = rest.firstRange(of: "-----") else { return nil }
      let label = String(rest[..<end.lowerBound])
      if label != "EC PARAMETERS" { return label }
    }
    return nil
  }

  /// Whether `signature` (DER for ECDSA, raw for RSA) is a SHA-256 signature of `input`.
  func verify(signature: [UInt8], over input: [UInt8]) -> Bool {
    defer { ERR_clear_error() }
    guard let context = EVP_MD_CTX_new() else { return false }
    defer { EVP_MD_CTX_free(context) }
    guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { return false }
    return EVP_DigestVerify(context, signature, signature.count, input, input.count) == 1
  }

  /// A SHA-256 signature of `input` (DER for ECDSA); needs a private key.
  func sign(_ input: [UInt8]) throws(TokenError) -> [UInt8] {
    defer { ERR_clear_error() }
    guard isPrivate else { throw TokenError.cannotSign.with("a public key cannot sign") }
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
    return Array(signature[..<length])
  }
}
