/// What a ``TLSConnection`` tells its owner: the shape of `TCPConnectionDelegate`, with
/// plaintext. Called on the connection's loop.
public protocol TLSConnectionDelegate: AnyObject {
  /// The handshake completed and passed every check. Clients made with
  /// ``TLSConnection/connect(to:serverName:context:on:completion:)`` learn this from the
  /// completion instead; servers from here. The default does nothing.
  func connectionDidHandshake(_ connection: TLSConnection)
  /// Decrypted bytes arrived. The buffer is only valid during the call: copy what you keep.
  func connection(_ connection: TLSConnection, didRead bytes: UnsafeRawBufferPointer)
  /// The peer sent `close_notify`: it will send nothing more. Writing is still possible;
  /// the default closes the connection (answering with our own `close_notify`).
  func connectionDidReadEOF(_ connection: TLSConnection)
  /// Buffered output crossed the TCP connection's high-water mark (`false`) or drained
  /// below the low one (`true`). The default does nothing.
  func connection(_ connection: TLSConnection, writabilityChanged writable: Bool)
  /// The TCP connection underneath found the peer too slow (more than its
  /// ``SwitchboardIO/WriteLimits/maximumBuffered`` queued while the kernel's buffer is
  /// full) and resets: `didCloseWith` follows. Unlike a plain TCP connection's, no farewell
  /// can take the backlog's place: the dropped records would leave a gap in the TLS record
  /// sequence, so the peer could not decrypt anything after it. The default does nothing.
  func connectionIsTooSlow(_ connection: TLSConnection)
  /// The connection is closed. `error` is `nil` for an orderly close (after
  /// ``TLSConnection/close()``, or after the peer's `close_notify`), otherwise why:
  /// ``TLSError/unexpectedEOF`` when TCP ended without `close_notify`,
  /// ``TLSError/protocolViolation``, ``TLSError/connectionFailed``, or a handshake error on
  /// the server side.
  func connection(_ connection: TLSConnection, didCloseWith error: TLSError?)
}

extension TLSConnectionDelegate {
  public func connectionDidHandshake(_ connection: TLSConnection) {}
  public func connectionDidReadEOF(_ connection: TLSConnection) { connection.close() }
  public func connection(_ connection: TLSConnection, writabilityChanged writable: Bool) {}
  public func connectionIsTooSlow(_ connection: TLSConnection) {}
}
