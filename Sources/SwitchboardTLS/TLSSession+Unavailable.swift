#if !canImport(COpenSSL)
  import SwitchboardIO

  /// ``TLSSession`` where this build has no TLS: the same API; no session can be made,
  /// because no ``TLSContext`` can (``TLSError/unavailable``).
  public final class TLSSession {
    /// Never evaluated: every initialiser throws, so no instance exists to reach it.
    private var impossible: Never { fatalError("no TLSSession exists in a build without its library") }

    /// The context the session was made from.
    public var context: TLSContext { impossible }
    /// The name sent as SNI and verified.
    public var serverName: String? { impossible }

    /// Throws ``TLSError/unavailable``.
    public init(context: TLSContext, serverName: String? = nil) throws(TLSError) {
      throw .unavailable(on: BuildPlatform.name)
    }

    /// Hands the TLS library bytes received from the peer.
    public func feedCiphertext(_ bytes: UnsafeRawBufferPointer) { impossible }
    /// Hands the TLS library bytes received from the peer.
    public func feedCiphertext(_ bytes: [UInt8]) { impossible }
    /// `true` when ``takeCiphertext()`` has bytes to send.
    public var hasCiphertext: Bool { impossible }
    /// What the TLS library produced for the peer, or `nil`.
    public func takeCiphertext() -> [UInt8]? { impossible }
    /// `true` once the handshake completed.
    public var isHandshakeComplete: Bool { impossible }
    /// Advances the handshake.
    public func handshake() -> HandshakeStatus { impossible }
    /// `true` once the peer sent `close_notify`.
    public var receivedCloseNotify: Bool { impossible }
    /// `true` once writing is over.
    public var isOutputClosed: Bool { impossible }
    /// Decrypts what was fed.
    public func readPlaintext(_ body: (UnsafeRawBufferPointer) -> Void) throws(TLSError) { impossible }
    /// Decrypts what was fed and returns it.
    public func readPlaintext() throws(TLSError) -> [UInt8] { impossible }
    /// Encrypts `bytes` for the peer.
    public func writePlaintext(_ bytes: UnsafeRawBufferPointer) throws(TLSError) { impossible }
    /// Encrypts `bytes` for the peer.
    public func writePlaintext(_ bytes: [UInt8]) throws(TLSError) { impossible }
    /// Queues a `close_notify` alert.
    public func close() { impossible }
    /// The ALPN protocol the peers agreed on.
    public var negotiatedProtocol: String? { impossible }
    /// The protocol version in use.
    public var protocolVersion: String? { impossible }
    /// The SHA-256 of the peer's leaf certificate's public key.
    public var peerPublicKeySHA256: [UInt8]? { impossible }
  }
#endif
