#if canImport(COpenSSL)
  import COpenSSL

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Darwin)
    import Darwin
  #endif

  /// One TLS conversation as a state machine over OpenSSL memory BIOs: no sockets inside.
  ///
  /// The owner moves bytes: what arrives from the network goes in with
  /// ``feedCiphertext(_:)-(UnsafeRawBufferPointer)``, what must be sent comes out of
  /// ``takeCiphertext()``. Between the two it drives ``handshake()`` until `.done`, then
  /// calls ``readPlaintext()`` after each feed and ``writePlaintext(_:)-([UInt8])`` to send.
  /// After any call, ciphertext may be waiting (handshake messages, alerts, session
  /// tickets, `close_notify`): take it and send it.
  ///
  /// ```swift
  /// session.feedCiphertext(received)
  /// if session.handshake() == .done { let text = try session.readPlaintext() }
  /// while let out = session.takeCiphertext() { socket.send(out) }
  /// ```
  ///
  /// A class because the OpenSSL objects need a stable address and are freed in `deinit`.
  /// **Thread confinement:** a session is used from one thread at a time — in Switchboard,
  /// the event loop of its connection. It is not `Sendable`.
  public final class TLSSession {
    private enum State {
      case handshaking
      case open
      /// We sent `close_notify`; the peer may still send until its own.
      case outputClosed
      /// The peer sent `close_notify`; we may still send.
      case inputClosed
      /// Both directions closed.
      case closed
      case failed(TLSError)
    }

    /// The context the session was made from.
    public let context: TLSContext
    /// The name sent as SNI and verified (clients only; `nil` for servers).
    public let serverName: String?
    private let ssl: OpaquePointer
    /// Network → OpenSSL.
    private let inbound: OpaquePointer
    /// OpenSSL → network.
    private let outbound: OpaquePointer
    private var state = State.handshaking
    /// Plaintext written before the handshake finished, or refused by OpenSSL for now.
    private var pendingPlaintext: [UInt8] = []

    /// Starts a client session (when `context` is a client context) or a server session.
    /// - Parameters:
    ///   - context: the client or server context the session follows.
    ///   - serverName: the name to send as SNI and verify the certificate against; `nil`
    ///     uses ``TLSConfiguration/serverName``. Ignored by server sessions. A name that
    ///     parses as an IPv4 or IPv6 address is matched against the certificate's IP
    ///     entries and not sent as SNI.
    /// - Throws: ``TLSError/invalidConfiguration`` when the context verifies certificates
    ///   and there is no server name to verify them against.
    public init(context: TLSContext, serverName: String? = nil) throws(TLSError) {
      clearOpenSSLErrors()
      guard let ssl = SSL_new(context.ctx) else { throw .invalidConfiguration("SSL_new failed") }
      guard let inbound = BIO_new(BIO_s_mem()), let outbound = BIO_new(BIO_s_mem()) else {
        SSL_free(ssl)
        throw .invalidConfiguration("BIO_new failed")
      }
      // The SSL object owns both BIOs from here on; `deinit` frees all three.
      SSL_set_bio(ssl, inbound, outbound)
      self.ssl = ssl
      self.inbound = inbound
      self.outbound = outbound
      self.context = context
      self.serverName = context.isServer ? nil : (serverName ?? context.defaultServerName)
      if context.isServer {
        SSL_set_accept_state(ssl)
        return
      }
      SSL_set_connect_state(ssl)
      guard let name = self.serverName, !name.isEmpty else {
        if context.verify {
          throw .invalidConfiguration(
            "a server name is needed to verify the certificate (pass serverName, or turn verify off)")
        }
        return
      }
      if isIPAddress(name) {
        if context.verify, X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) != 1 {
          throw .invalidConfiguration("cannot verify IP address \(name)")
        }
      } else {
        guard sb_SSL_set_tlsext_host_name(ssl, name) == 1 else {
          throw .invalidConfiguration("invalid server name \(name)")
        }
        if context.verify {
          SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
          guard SSL_set1_host(ssl, name) == 1 else {
            throw .invalidConfiguration("invalid server name \(name)")
          }
        }
      }
    }

    deinit { SSL_free(ssl) }

    // MARK: Bytes in and out

    /// Hands OpenSSL bytes received from the peer. Nothing is decrypted until
    /// ``handshake()`` or ``readPlaintext()`` runs.
    public func feedCiphertext(_ bytes: UnsafeRawBufferPointer) {
      guard let base = bytes.baseAddress, bytes.count > 0 else { return }
      var offset = 0
      while offset < bytes.count {
        let chunk = min(bytes.count - offset, Int(Int32.max))
        // A memory BIO takes everything (it grows); it fails only when out of memory.
        let n = BIO_write(inbound, base + offset, Int32(chunk))
        guard n > 0 else { break }
        offset += Int(n)
      }
    }

    /// Hands OpenSSL bytes received from the peer.
    public func feedCiphertext(_ bytes: [UInt8]) {
      bytes.withUnsafeBytes { feedCiphertext($0) }
    }

    /// `true` when ``takeCiphertext()`` has bytes to send.
    public var hasCiphertext: Bool { BIO_ctrl_pending(outbound) > 0 }

    /// Everything OpenSSL produced for the peer since the last call, or `nil` when nothing.
    public func takeCiphertext() -> [UInt8]? {
      let pending = Int(BIO_ctrl_pending(outbound))
      guard pending > 0 else { return nil }
      return [UInt8](unsafeUninitializedCapacity: pending) { buffer, count in
        count = max(0, Int(BIO_read(outbound, buffer.baseAddress, Int32(clamping: pending))))
      }
    }

    // MARK: Handshake

    /// `true` once the handshake completed and passed every check.
    public var isHandshakeComplete: Bool {
      switch state {
      case .handshaking, .failed: false
      case .open, .outputClosed, .inputClosed, .closed: true
      }
    }

    /// Advances the handshake with what was fed so far. Call it first with nothing fed on a
    /// client (it produces the ClientHello), then after every feed until it is `.done`.
    /// After `.done` or `.failed` it keeps returning the same answer.
    ///
    /// On a client, `.done` means the chain verified against the trust roots, the name
    /// matched and the leaf's public key is one of the pins (when there are pins).
    public func handshake() -> HandshakeStatus {
      switch state {
      case .handshaking: break
      case .failed(let error): return .failed(error)
      case .open, .outputClosed, .inputClosed, .closed: return .done
      }
      clearOpenSSLErrors()
      let rc = SSL_do_handshake(ssl)
      if rc == 1 {
        if let error = checkPins() {
          state = .failed(error)
          return .failed(error)
        }
        state = .open
        flushPendingPlaintext()
        if case .failed(let error) = state { return .failed(error) }
        return .done
      }
      let code = SSL_get_error(ssl, rc)
      if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE { return .wantIO }
      let error: TLSError
      let verifyResult = SSL_get_verify_result(ssl)
      if !context.isServer && context.verify && verifyResult != Int(X509_V_OK) {
        error = .certificateVerifyFailed(result: verifyResult)
      } else if code == SSL_ERROR_ZERO_RETURN {
        error = .handshakeFailed("the peer sent close_notify during the handshake")
      } else {
        error = .handshakeFailed(lastOpenSSLReason() ?? "SSL_do_handshake error \(code)")
      }
      state = .failed(error)
      return .failed(error)
    }

    private func checkPins() -> TLSError? {
      guard !context.isServer, !context.pins.isEmpty else { return nil }
      guard let leaf = SSL_get0_peer_certificate(ssl), let pin = publicKeySHA256(of: leaf) else {
        return .pinMismatch("the server sent no certificate")
      }
      if context.pins.contains(pin) { return nil }
      return .pinMismatch("the leaf's public key SHA-256 is \(hex(pin)), which is not pinned")
    }

    // MARK: Plaintext

    /// `true` once the peer sent `close_notify`: no more plaintext will come.
    public var receivedCloseNotify: Bool {
      switch state {
      case .inputClosed, .closed: true
      default: false
      }
    }

    /// `true` once writing is over: after ``close()`` (our `close_notify` is queued) or a
    /// failure. ``writePlaintext(_:)-(UnsafeRawBufferPointer)`` then throws.
    public var isOutputClosed: Bool {
      switch state {
      case .outputClosed, .closed, .failed: true
      case .handshaking, .open, .inputClosed: false
      }
    }

    /// Decrypts what was fed and hands it to `body` in chunks of at most 16 KiB (each chunk
    /// is valid only during the call). Returns when OpenSSL needs more input, or when the
    /// peer's `close_notify` arrives (see ``receivedCloseNotify``). Before the handshake is
    /// done it does nothing.
    /// - Throws: ``TLSError/protocolViolation`` for a record that fails to decrypt or parse, or
    ///   an alert from the peer; the session is then failed.
    public func readPlaintext(_ body: (UnsafeRawBufferPointer) -> Void) throws(TLSError) {
      var failure: TLSError?
      withUnsafeTemporaryAllocation(byteCount: 16 * 1024, alignment: 16) { buffer in
        while true {
          switch state {
          case .open, .outputClosed: break
          case .handshaking, .inputClosed, .closed, .failed: return
          }
          clearOpenSSLErrors()
          var n = 0
          let rc = SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &n)
          if rc == 1 {
            body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            continue
          }
          let code = SSL_get_error(ssl, rc)
          switch code {
          case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            flushPendingPlaintext()
            return
          case SSL_ERROR_ZERO_RETURN:
            if case .outputClosed = state { state = .closed } else { state = .inputClosed }
            return
          default:
            let error = TLSError.protocolViolation(lastOpenSSLReason() ?? "SSL_read error \(code)")
            state = .failed(error)
            failure = error
            return
          }
        }
      }
      if let failure { throw failure }
    }

    /// Decrypts what was fed and returns it (empty when nothing complete arrived).
    /// - Throws: ``TLSError/protocolViolation`` as ``readPlaintext(_:)`` does.
    public func readPlaintext() throws(TLSError) -> [UInt8] {
      var result: [UInt8] = []
      try readPlaintext { result.append(contentsOf: $0) }
      return result
    }

    /// Encrypts `bytes` for the peer (take them with ``takeCiphertext()``). Before the
    /// handshake is done they are kept and sent once it is.
    /// - Throws: ``TLSError/closed`` after ``close()`` or a failure.
    public func writePlaintext(_ bytes: UnsafeRawBufferPointer) throws(TLSError) {
      switch state {
      case .handshaking:
        pendingPlaintext.append(contentsOf: bytes)
        return
      case .open, .inputClosed:
        break
      case .outputClosed, .closed:
        throw .closed("cannot write after close_notify")
      case .failed(let error):
        throw .closed("the session failed: \(error)")
      }
      if !pendingPlaintext.isEmpty {
        pendingPlaintext.append(contentsOf: bytes)
        flushPendingPlaintext()
      } else {
        let written = write(bytes)
        if written < bytes.count { pendingPlaintext.append(contentsOf: bytes[written...]) }
      }
      if case .failed(let error) = state { throw error }
    }

    /// Encrypts `bytes` for the peer.
    /// - Throws: ``TLSError/closed`` after ``close()`` or a failure.
    public func writePlaintext(_ bytes: [UInt8]) throws(TLSError) {
      // `withUnsafeBytes` rethrows untyped errors: carry the typed one out by hand.
      let result = bytes.withUnsafeBytes { raw in Result { () throws(TLSError) in try writePlaintext(raw) } }
      try result.get()
    }

    /// Writes what it can; returns how many bytes OpenSSL took.
    private func write(_ bytes: UnsafeRawBufferPointer) -> Int {
      var offset = 0
      while offset < bytes.count {
        clearOpenSSLErrors()
        var n = 0
        let rc = SSL_write_ex(ssl, bytes.baseAddress! + offset, bytes.count - offset, &n)
        if rc == 1 {
          offset += n
          continue
        }
        let code = SSL_get_error(ssl, rc)
        if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE { break }
        state = .failed(.protocolViolation(lastOpenSSLReason() ?? "SSL_write error \(code)"))
        break
      }
      return offset
    }

    private func flushPendingPlaintext() {
      guard !pendingPlaintext.isEmpty else { return }
      switch state {
      case .open, .inputClosed: break
      default: return
      }
      let written = pendingPlaintext.withUnsafeBytes { write($0) }
      pendingPlaintext.removeFirst(written)
    }

    // MARK: Closing and facts

    /// Queues a `close_notify` alert (take it with ``takeCiphertext()``). Writing is over;
    /// reading may go on until the peer's own `close_notify`. Before the handshake is done
    /// there is nothing to notify and the session is simply closed.
    public func close() {
      switch state {
      case .handshaking:
        state = .closed
      case .open:
        clearOpenSSLErrors()
        _ = SSL_shutdown(ssl)
        state = .outputClosed
      case .inputClosed:
        clearOpenSSLErrors()
        _ = SSL_shutdown(ssl)
        state = .closed
      case .outputClosed, .closed, .failed:
        return
      }
    }

    /// The ALPN protocol the peers agreed on, if any.
    public var negotiatedProtocol: String? {
      var data: UnsafePointer<UInt8>? = nil
      var length: UInt32 = 0
      SSL_get0_alpn_selected(ssl, &data, &length)
      guard let data, length > 0 else { return nil }
      return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// The protocol version in use, such as `"TLSv1.3"` (`nil` before the handshake).
    public var protocolVersion: String? {
      guard isHandshakeComplete, let name = SSL_get_version(ssl) else { return nil }
      return String(cString: name)
    }

    /// The SHA-256 of the peer's leaf certificate's public key (the pin format of
    /// ``TLSConfiguration/pinnedSHA256``), when the peer sent a certificate.
    public var peerPublicKeySHA256: [UInt8]? {
      guard let leaf = SSL_get0_peer_certificate(ssl) else { return nil }
      return publicKeySHA256(of: leaf)
    }
  }

  /// The reason text of the newest entry in OpenSSL's error queue (left in the queue).
  func lastOpenSSLReason() -> String? {
    let code = ERR_peek_last_error()
    guard code != 0, let text = ERR_reason_error_string(code) else { return nil }
    return String(cString: text)
  }

  func isIPAddress(_ name: String) -> Bool {
    var v4 = in_addr()
    var v6 = in6_addr()
    return inet_pton(AF_INET, name, &v4) == 1 || inet_pton(AF_INET6, name, &v6) == 1
  }

  func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    var text = ""
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 15)])
    }
    return text
  }
#endif
