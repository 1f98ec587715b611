#if canImport(COpenSSL)
  import COpenSSL

  /// The certificates a server context may switch to by SNI: the name a client asks for
  /// (its `server_name` extension) is matched against each certificate's names
  /// (subjectAltName DNS entries, wildcards included, as `X509_check_host` does), first
  /// the default certificate's, then the others in order; no match, or no SNI at all,
  /// keeps the default.
  ///
  /// Immutable after `init`; owned by the default ``TLSContext``, which keeps the other
  /// contexts alive for as long as any session made from it may switch to them.
  final class TLSServerNameTable {
    let alternates: [TLSContext]

    init(alternates: [TLSContext]) {
      self.alternates = alternates
    }

    /// The context whose certificate names `name`, or `nil` for the default.
    func context(for name: String, default primary: TLSContext) -> TLSContext? {
      if primary.certificateNames(name) { return nil }
      return alternates.first { $0.certificateNames(name) }
    }
  }

  extension TLSContext {
    /// Makes a server context that picks its certificate by SNI among `identities`. The
    /// first is the default (clients without SNI, or asking for a name no certificate
    /// holds); the others are chosen when their certificate names the requested host.
    /// Every identity should have the same ALPN list and minimum version (those of the
    /// first are the ones negotiated).
    /// - Throws: ``TLSError/invalidConfiguration`` for an empty list, or naming the file
    ///   that cannot be loaded or the key that does not match its certificate.
    public convenience init(serverIdentities identities: [TLSServerConfiguration]) throws(TLSError) {
      guard let first = identities.first else {
        throw .invalidConfiguration("a server needs at least one certificate and key")
      }
      var alternates: [TLSContext] = []
      for identity in identities.dropFirst() {
        alternates.append(try TLSContext(serverConfiguration: identity))
      }
      try self.init(serverConfiguration: first)
      guard !alternates.isEmpty else { return }
      let table = TLSServerNameTable(alternates: alternates)
      serverNameTable = table
      // Unretained: `self` owns the table and outlives every callback made on its SSL_CTX.
      sb_SSL_CTX_set_servername_callback(ctx, serverNameSelect, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Whether this context's certificate is valid for host `name`.
    func certificateNames(_ name: String) -> Bool {
      guard let leaf = SSL_CTX_get0_certificate(ctx) else { return false }
      let flags = UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS)
      return X509_check_host(leaf, name, name.utf8.count, flags, nil) == 1
    }

    /// A one-line description of the (default) certificate, for logs: its subject, serial
    /// number and expiry, such as `"/CN=example.org serial 1A expires Jan  1 00:00:00 2027 GMT"`.
    /// `nil` for a client context.
    public var certificateSummary: String? {
      guard isServer, let leaf = SSL_CTX_get0_certificate(ctx) else { return nil }
      var parts: [String] = []
      var buffer = [CChar](repeating: 0, count: 512)
      if let subject = X509_get_subject_name(leaf),
        X509_NAME_oneline(subject, &buffer, Int32(buffer.count)) != nil
      {
        parts.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
      }
      if let serial = X509_get_serialNumber(leaf), let number = ASN1_INTEGER_to_BN(serial, nil) {
        defer { BN_free(number) }
        if let text = BN_bn2hex(number) {
          parts.append("serial " + String(cString: text))
          CRYPTO_free(text, nil, 0)
        }
      }
      if let notAfter = X509_get0_notAfter(leaf), let bio = BIO_new(BIO_s_mem()) {
        defer { BIO_free(bio) }
        if ASN1_TIME_print(bio, notAfter) == 1 {
          var data: UnsafeMutablePointer<CChar>? = nil
          let length = sb_BIO_get_mem_data(bio, &data)
          if let data, length > 0 {
            let bytes = UnsafeRawBufferPointer(start: data, count: Int(length))
            parts.append("expires " + String(decoding: bytes, as: UTF8.self))
          }
        }
      }
      return parts.joined(separator: " ")
    }
  }

  /// OpenSSL's servername callback: switches the session to the certificate SNI asks for.
  private func serverNameSelect(
    _ ssl: OpaquePointer?, _ alert: UnsafeMutablePointer<Int32>?, _ argument: UnsafeMutableRawPointer?
  ) -> Int32 {
    guard let ssl, let argument, let raw = SSL_get_servername(ssl, Int32(TLSEXT_NAMETYPE_host_name)) else {
      return SSL_TLSEXT_ERR_OK
    }
    let primary = Unmanaged<TLSContext>.fromOpaque(argument).takeUnretainedValue()
    let name = String(cString: raw)
    if let table = primary.serverNameTable, let chosen = table.context(for: name, default: primary) {
      _ = SSL_set_SSL_CTX(ssl, chosen.ctx)
    }
    return SSL_TLSEXT_ERR_OK
  }
#endif
