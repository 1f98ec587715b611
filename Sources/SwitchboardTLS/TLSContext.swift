#if canImport(COpenSSL)
  import COpenSSL

  /// A prepared OpenSSL context (`SSL_CTX`): trust store, own certificate and key, ALPN,
  /// protocol versions. Make one per configuration and share it: every ``TLSSession``
  /// made from it reuses the loaded certificates.
  public final class TLSContext: @unchecked Sendable {
    // Safety: the SSL_CTX is fully configured in `init` and never changed afterwards;
    // OpenSSL allows one SSL_CTX to create SSL objects on many threads at once (its
    // reference counts and session cache are locked internally). `alpnArgument` is written
    // once in `init` and read by the ALPN callback only.

    /// `true` for a server context (sessions accept), `false` for a client context.
    public let isServer: Bool
    let ctx: OpaquePointer
    /// The client's default server name (``TLSConfiguration/serverName``).
    let defaultServerName: String?
    let verify: Bool
    let pins: [[UInt8]]
    /// Server ALPN list for the selection callback: a `UInt32` length, then the wire format.
    private let alpnArgument: UnsafeMutableRawPointer?
    /// The other certificates SNI may pick (``init(serverIdentities:)``); set once in that
    /// initializer, before the context is shared, and read by the servername callback only.
    var serverNameTable: TLSServerNameTable?

    /// Makes a client context.
    /// - Throws: ``TLSError/invalidConfiguration`` when the CA file or PEM cannot be loaded
    ///   or holds no certificate, or a pin is not 32 bytes.
    public init(configuration: TLSConfiguration) throws(TLSError) {
      clearOpenSSLErrors()
      guard let ctx = SSL_CTX_new(TLS_client_method()) else {
        throw .invalidConfiguration("SSL_CTX_new failed")
      }
      self.ctx = ctx
      self.isServer = false
      self.defaultServerName = configuration.serverName
      self.verify = configuration.verify
      self.pins = configuration.pinnedSHA256
      self.alpnArgument = nil
      // From here on `deinit` frees the context if a check below throws.
      try Self.applyCommon(ctx, minimumVersion: configuration.minimumVersion)
      for pin in pins where pin.count != 32 {
        throw .invalidConfiguration("a SHA-256 pin must be 32 bytes, not \(pin.count)")
      }
      switch configuration.trustRoots {
      case .system:
        guard SSL_CTX_set_default_verify_paths(ctx) == 1 else {
          throw .invalidConfiguration("cannot load the system trust store")
        }
      case .caFile(let path):
        guard SSL_CTX_load_verify_locations(ctx, path, nil) == 1 else {
          throw .invalidConfiguration("cannot load CA file \(path)")
        }
      case .caPEM(let pem):
        let store = SSL_CTX_get_cert_store(ctx)
        let certificates = try readCertificates(pem: pem)
        defer { for certificate in certificates { X509_free(certificate) } }
        for certificate in certificates where X509_STORE_add_cert(store, certificate) != 1 {
          throw .invalidConfiguration("cannot add a CA certificate to the trust store")
        }
      }
      SSL_CTX_set_verify(ctx, configuration.verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nil)
      if !configuration.applicationProtocols.isEmpty {
        let wire = try alpnWireFormat(configuration.applicationProtocols)
        // Returns 0 on success, unlike most of OpenSSL.
        guard SSL_CTX_set_alpn_protos(ctx, wire, UInt32(wire.count)) == 0 else {
          throw .invalidConfiguration("cannot set ALPN protocols")
        }
      }
    }

    /// Makes a server context, loading the certificate chain and key.
    /// - Throws: ``TLSError/invalidConfiguration`` when a file cannot be read or the key
    ///   does not belong to the certificate.
    public init(serverConfiguration configuration: TLSServerConfiguration) throws(TLSError) {
      let wire =
        configuration.applicationProtocols.isEmpty
        ? nil : try alpnWireFormat(configuration.applicationProtocols)
      clearOpenSSLErrors()
      guard let ctx = SSL_CTX_new(TLS_server_method()) else {
        throw .invalidConfiguration("SSL_CTX_new failed")
      }
      self.ctx = ctx
      self.isServer = true
      self.defaultServerName = nil
      self.verify = false
      self.pins = []
      if let wire {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: 4 + wire.count, alignment: 4)
        raw.storeBytes(of: UInt32(wire.count), as: UInt32.self)
        wire.withUnsafeBytes { (raw + 4).copyMemory(from: $0.baseAddress!, byteCount: wire.count) }
        self.alpnArgument = raw
        SSL_CTX_set_alpn_select_cb(ctx, alpnSelect, raw)
      } else {
        self.alpnArgument = nil
      }
      try Self.applyCommon(ctx, minimumVersion: configuration.minimumVersion)
      // A server holds thousands of mostly idle connections: OpenSSL frees a connection's
      // record buffers (~34 KiB) whenever they are empty instead of keeping them for its
      // life.
      _ = sb_SSL_CTX_set_mode(ctx, Int(SSL_MODE_RELEASE_BUFFERS))
      guard SSL_CTX_set_cipher_list(ctx, Self.serverCipherList) == 1 else {
        throw .invalidConfiguration("cannot set the TLS 1.2 cipher list")
      }
      let chain = configuration.certificateChainPEMFile
      guard SSL_CTX_use_certificate_chain_file(ctx, chain) == 1 else {
        throw .invalidConfiguration("cannot load certificate chain \(chain)")
      }
      let key = configuration.privateKeyPEMFile
      guard SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) == 1 else {
        // OpenSSL already compares the key with the certificate here.
        if sb_ERR_is_key_mismatch(ERR_peek_last_error()) != 0 {
          throw .keyMismatch("the private key \(key) does not match the certificate \(chain)")
        }
        throw .invalidConfiguration("cannot load private key \(key)")
      }
      guard SSL_CTX_check_private_key(ctx) == 1 else {
        throw .keyMismatch("the private key \(key) does not match the certificate \(chain)")
      }
    }

    /// The TLS 1.2 suites a server context offers: forward-secret ECDHE key exchange with
    /// AEAD ciphers only (AES-GCM, ChaCha20-Poly1305), as in Mozilla's "intermediate"
    /// profile without the DHE suites. TLS 1.3 keeps OpenSSL's default suites
    /// (`TLS_AES_256_GCM_SHA384`, `TLS_CHACHA20_POLY1305_SHA256`, `TLS_AES_128_GCM_SHA256`).
    public static let serverCipherList =
      "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
      + "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

    deinit {
      SSL_CTX_free(ctx)
      alpnArgument?.deallocate()
    }

    private static func applyCommon(_ ctx: OpaquePointer, minimumVersion: TLSVersion) throws(TLSError) {
      let version = max(minimumVersion.rawValue, TLSVersion.tls12.rawValue)
      guard sb_SSL_CTX_set_min_proto_version(ctx, version) == 1 else {
        throw .invalidConfiguration("cannot set the minimum protocol version")
      }
      // Memory BIOs never block, but SSL_write may still be retried with a moved buffer.
      _ = sb_SSL_CTX_set_mode(ctx, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
      // Renegotiation is a TLS 1.2 relic with a history of attacks; nobody here needs it.
      sb_SSL_CTX_disable_renegotiation(ctx)
    }
  }

  /// The server's ALPN choice: its own preference order among what the client offers.
  private func alpnSelect(
    _ ssl: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    _ outLength: UnsafeMutablePointer<UInt8>?, _ client: UnsafePointer<UInt8>?, _ clientLength: UInt32,
    _ argument: UnsafeMutableRawPointer?
  ) -> Int32 {
    guard let argument, let out, let outLength, let client else { return SSL_TLSEXT_ERR_NOACK }
    let serverLength = argument.load(as: UInt32.self)
    let server = (argument + 4).assumingMemoryBound(to: UInt8.self)
    let result = out.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 1) { selected in
      SSL_select_next_proto(selected, outLength, server, serverLength, client, clientLength)
    }
    return result == OPENSSL_NPN_NEGOTIATED ? SSL_TLSEXT_ERR_OK : SSL_TLSEXT_ERR_NOACK
  }

  /// Parses every certificate in `pem`; the caller frees them.
  func readCertificates(pem: String) throws(TLSError) -> [OpaquePointer] {
    var bytes = Array(pem.utf8)
    let bio: OpaquePointer? = bytes.withUnsafeMutableBytes {
      BIO_new_mem_buf($0.baseAddress, Int32($0.count))
    }
    guard let bio else { throw .invalidConfiguration("BIO_new_mem_buf failed") }
    defer { BIO_free(bio) }
    // BIO_new_mem_buf does not copy: keep `bytes` alive until the BIO is done.
    var certificates: [OpaquePointer] = []
    while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
      certificates.append(certificate)
    }
    withExtendedLifetime(bytes) {}
    // Reading stops with a "no start line" error at the end; that one is expected.
    ERR_clear_error()
    guard !certificates.isEmpty else { throw .invalidConfiguration("no certificate in the PEM text") }
    return certificates
  }

  /// SHA-256 of the certificate's SubjectPublicKeyInfo in DER (the pin format).
  func publicKeySHA256(of certificate: OpaquePointer) -> [UInt8]? {
    guard let key = X509_get0_pubkey(certificate) else { return nil }
    let length = i2d_PUBKEY(key, nil)
    guard length > 0 else { return nil }
    var der = [UInt8](repeating: 0, count: Int(length))
    let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
      var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
      return i2d_PUBKEY(key, &cursor)
    }
    guard written == length else { return nil }
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var digestLength: UInt32 = 0
    guard EVP_Digest(der, der.count, &digest, &digestLength, EVP_sha256(), nil) == 1 else { return nil }
    return Array(digest[0..<Int(digestLength)])
  }

  extension TLSConfiguration {
    /// The pin of a certificate: SHA-256 of its SubjectPublicKeyInfo (DER), for
    /// ``pinnedSHA256``. Takes the first certificate in `pem`.
    /// - Throws: ``TLSError/invalidConfiguration`` when `pem` holds no certificate.
    public static func publicKeySHA256(certificatePEM pem: String) throws(TLSError) -> [UInt8] {
      let certificates = try readCertificates(pem: pem)
      defer { for certificate in certificates { X509_free(certificate) } }
      guard let pin = SwitchboardTLS.publicKeySHA256(of: certificates[0]) else {
        throw .invalidConfiguration("cannot encode the certificate's public key")
      }
      return pin
    }
  }
#endif
