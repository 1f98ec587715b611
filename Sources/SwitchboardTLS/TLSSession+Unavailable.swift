#if !canImport(COpenSSL)
  import SwitchboardIO

  /// ``TLSSession`` where this build has no TLS: the same API; no session can be made,
  /// because no ``TLSContext`` can (``TLSError/unavailable``).
  public final class TLSSession {
    private let impossible: Never

    /// The context the session was made from.
    public var context: TLSContext { switch impossible {} }
    /// The name sent as SNI and verified.
    public var serverName: String? { switch impossible {} }

    /// Throws ``TLSError/unavailable``.
    public init(context: TLSContext, serverName: String? = nil) throws(TLSError) {
      throw .unavailable(on: BuildPlatform.name)
    }

    /// Hands the TLS library bytes received from the peer.
    public func feedCiphertext(_ bytes: UnsafeRawBufferPointer) { switch impossible {} }
    /// Hands the TLS library bytes received from the peer.
    public func feedCiphertext(_ bytes: [UInt8]) { switch impossible {} }
    /// `true` when ``takeCiphertext()`` has bytes to send.
    public var hasCiphertext: Bool { switch impossible {} }
    /// What the TLS library produced for the peer, or `nil`.
    public func takeCiphertext() -> [UInt8]? { switch impossible {} }
    /// `true` once the handshake completed.
    public var isHandshakeComplete: Bool { switch impossible {} }
    /// Advances the handshake.
    public func handshake() -> HandshakeStatus { switch impossible {} }
    /// `true` once the peer sent `close_notify`.
    public var receivedCloseNotify: Bool { switch impossible {} }
    /// Decrypts what was fed.
    public func readPlaintext(_ body: (UnsafeRawBufferPointer) -> Void) throws(TLSError) { switch impossible {} }
    /// Decrypts what was fed and returns it.
    public func readPlaintext() throws(TLSError) -> [UInt8] { switch impossible {} }
    /// Encrypts `bytes` for the peer.
    public func writePlaintext(_ bytes: UnsafeRawBufferPointer) throws(TLSError) { switch impossible {} }
    /// Encrypts `bytes` for the peer.
    public func writePlaintext(_ bytes: [UInt8]) throws(TLSError) { switch impossible {} }
    /// Queues a `close_notify` alert.
    public func close() { switch impossible {} }
    /// The ALPN protocol the peers agreed on.
    public var negotiatedProtocol: String? { switch impossible {} }
    /// The protocol version in use.
    public var protocolVersion: String? { switch impossible {} }
    /// The SHA-256 of the peer's leaf certificate's public key.
    public var peerPublicKeySHA256: [UInt8]? { switch impossible {} }
  }
#endif
