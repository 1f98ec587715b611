import SwitchboardIO

/// What a ``ByteStream`` tells its owner, whether it is TCP or TLS: implement these five
/// (three have defaults) and ``ByteStream/attach(_:)``.
///
/// It refines both connections' delegate protocols so that either connection can call its
/// owner directly (no object in between, no extra call per read); this protocol's extension
/// implements their requirements by forwarding to the methods below, so a conforming type
/// writes none of them. Called on the connection's loop.
public protocol ByteStreamDelegate: TCPConnectionDelegate, TLSConnectionDelegate {
  /// Bytes arrived (decrypted under TLS). The buffer is only valid during the call: copy
  /// what you keep.
  func stream(_ stream: ByteStream, didRead bytes: UnsafeRawBufferPointer)
  /// The peer finished sending (TCP FIN; under TLS, `close_notify`). Writing is still
  /// possible; the default closes the stream once queued output is flushed.
  func streamDidReadEOF(_ stream: ByteStream)
  /// Buffered output crossed the TCP connection's high-water mark (`false`) or drained
  /// below the low one (`true`). The default does nothing.
  func stream(_ stream: ByteStream, writabilityChanged writable: Bool)
  /// The peer is too slow: more than the TCP connection's
  /// ``SwitchboardIO/WriteLimits/maximumBuffered`` bytes are queued while the kernel's
  /// buffer is full, and the connection closes with an ``SwitchboardIO/IOError`` of kind
  /// ``SwitchboardIO/IOError/Kind/slowConsumer``. Over TCP, the bytes returned (a close
  /// frame, a last line) take the dropped backlog's place
  /// (``SwitchboardIO/TCPConnectionDelegate/connectionIsTooSlow(_:)``); under TLS they are
  /// not sent (``TLSConnectionDelegate/connectionIsTooSlow(_:)``) and the connection
  /// resets. The default returns `nil`.
  func streamIsTooSlow(_ stream: ByteStream) -> SharedBytes?
  /// The stream is closed. `error` is `nil` for an orderly close, otherwise why.
  func stream(_ stream: ByteStream, didCloseWith error: ByteStreamError?)
}

extension ByteStreamDelegate {
  public func streamDidReadEOF(_ stream: ByteStream) { stream.close() }
  public func stream(_ stream: ByteStream, writabilityChanged writable: Bool) {}
  public func streamIsTooSlow(_ stream: ByteStream) -> SharedBytes? { nil }

  // The TCP connection's events.

  @inlinable public func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer) {
    stream(.tcp(connection), didRead: bytes)
  }
  @inlinable public func connectionDidReadEOF(_ connection: TCPConnection) { streamDidReadEOF(.tcp(connection)) }
  @inlinable public func connection(_ connection: TCPConnection, writabilityChanged writable: Bool) {
    stream(.tcp(connection), writabilityChanged: writable)
  }
  @inlinable public func connection(_ connection: TCPConnection, didCloseWith error: IOError?) {
    stream(.tcp(connection), didCloseWith: error.map(ByteStreamError.io))
  }
  public func connectionIsTooSlow(_ connection: TCPConnection) -> SharedBytes? {
    streamIsTooSlow(.tcp(connection))
  }

  // The TLS connection's events.

  @inlinable public func connection(_ connection: TLSConnection, didRead bytes: UnsafeRawBufferPointer) {
    stream(.tls(connection), didRead: bytes)
  }
  @inlinable public func connectionDidReadEOF(_ connection: TLSConnection) { streamDidReadEOF(.tls(connection)) }
  @inlinable public func connection(_ connection: TLSConnection, writabilityChanged writable: Bool) {
    stream(.tls(connection), writabilityChanged: writable)
  }
  @inlinable public func connection(_ connection: TLSConnection, didCloseWith error: TLSError?) {
    stream(.tls(connection), didCloseWith: error.map(ByteStreamError.tls))
  }
  public func connectionIsTooSlow(_ connection: TLSConnection) { _ = streamIsTooSlow(.tls(connection)) }
}
