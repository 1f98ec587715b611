import SwitchboardIO

/// One byte stream, plain or encrypted: a ``SwitchboardIO/TCPConnection`` (`ws://`,
/// `redis://`, `tcp://`) or a ``TLSConnection`` over one (`wss://`, `rediss://`, `tls://`).
///
/// Both have the same shape (loop-bound, one delegate, writes queue, `close` flushes
/// first), so code above them (a WebSocket handshake, a Redis pipeline, a line reader) runs
/// unchanged on either and hears both through one ``ByteStreamDelegate``; this enum is the
/// one place that tells them apart. Output limits and backpressure always come from the TCP
/// connection (under TLS, its ciphertext buffer). Every member must be called on the
/// connection's loop.
public enum ByteStream {
  /// Plaintext TCP.
  case tcp(TCPConnection)
  /// TLS over TCP.
  case tls(TLSConnection)

  /// The TCP connection carrying the bytes (for TLS, the one under the session): for its
  /// descriptor, address and ``SwitchboardIO/WriteLimits``. Do not write to it or change its
  /// delegate.
  @inlinable public var tcp: TCPConnection {
    switch self {
    case .tcp(let connection): connection
    case .tls(let connection): connection.tcp
    }
  }

  /// `true` once the connection is closed; writes are then dropped.
  @inlinable public var isClosed: Bool {
    switch self {
    case .tcp(let connection): connection.isClosed
    case .tls(let connection): connection.isClosed
    }
  }

  /// `false` while output is above the TCP connection's high-water mark.
  @inlinable public var isWritable: Bool { tcp.isWritable }

  /// Bytes queued on the socket and not yet taken by the kernel.
  @inlinable public var bufferedBytes: Int { tcp.bufferedBytes }

  /// The peer's address, when known.
  @inlinable public var remoteAddress: SocketAddress? { tcp.remoteAddress }

  /// The TCP connection's output limits (under TLS they bound the ciphertext).
  @inlinable public var limits: WriteLimits {
    get { tcp.limits }
    nonmutating set { tcp.limits = newValue }
  }

  /// Where the TCP connection counts the bytes it moves (under TLS, ciphertext).
  @inlinable public var byteCounter: ByteCounter? {
    get { tcp.byteCounter }
    nonmutating set { tcp.byteCounter = newValue }
  }

  /// Points the connection's events at `delegate`. A TCP connection holds its delegate
  /// until it closes, a TLS connection weakly: keep `delegate` alive while the stream is
  /// open.
  public func attach(_ delegate: any ByteStreamDelegate) {
    switch self {
    case .tcp(let connection): connection.delegate = delegate
    case .tls(let connection): connection.delegate = delegate
    }
  }

  /// Stops the connection's events reaching its delegate.
  public func detach() {
    switch self {
    case .tcp(let connection): connection.delegate = nil
    case .tls(let connection): connection.delegate = nil
    }
  }

  /// Queues `bytes` (encrypting them first under TLS).
  @inlinable public func write(_ bytes: [UInt8]) {
    switch self {
    case .tcp(let connection):
      // One `memcpy` into the connection's buffer type (`SharedBytes.init(_:)` copies
      // element by element, which is slow for large messages in debug builds).
      connection.write(bytes.withUnsafeBytes { SharedBytes(copying: $0) })
    case .tls(let connection):
      connection.write(bytes)
    }
  }

  /// Queues a copy of `bytes` (encrypting them first under TLS).
  @inlinable public func write(_ bytes: UnsafeRawBufferPointer) {
    switch self {
    case .tcp(let connection): connection.write(SharedBytes(copying: bytes))
    case .tls(let connection): connection.write(bytes)
    }
  }

  /// Queues `bytes` (``SwitchboardIO/TCPConnection/write(_:)-(SharedBytes)``; under TLS,
  /// encrypted first).
  @inlinable public func write(_ bytes: SharedBytes) {
    switch self {
    case .tcp(let connection): connection.write(bytes)
    case .tls(let connection): bytes.withUnsafeBytes { connection.write($0) }
    }
  }

  /// Queues `bytes`, writing them at once when `immediately` and nothing is queued
  /// before them (``SwitchboardIO/TCPConnection/write(_:immediately:)``). Under TLS they
  /// are encrypted and queued: the ciphertext leaves with the loop's next flush.
  @inlinable public func write(_ bytes: SharedBytes, immediately: Bool) {
    switch self {
    case .tcp(let connection): connection.write(bytes, immediately: immediately)
    case .tls(let connection): bytes.withUnsafeBytes { connection.write($0) }
    }
  }

  /// Queues the `count` bytes of `bytes` from `offset`
  /// (``SwitchboardIO/TCPConnection/write(_:offset:count:immediately:)``).
  @inlinable public func write(_ bytes: SharedBytes, offset: Int, count: Int, immediately: Bool) {
    switch self {
    case .tcp(let connection):
      connection.write(bytes, offset: offset, count: count, immediately: immediately)
    case .tls(let connection):
      precondition(offset >= 0 && count >= 0 && offset + count <= bytes.count, "write: range outside the bytes")
      bytes.withUnsafeBytes { connection.write(UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count])) }
    }
  }

  /// Writes `bytes` with a system call of its own when nothing is queued
  /// (``SwitchboardIO/TCPConnection/writeAtOnce(_:)``): a connection's first output. Under
  /// TLS, encrypted and queued.
  public func writeAtOnce(_ bytes: SharedBytes) {
    switch self {
    case .tcp(let connection): connection.writeAtOnce(bytes)
    case .tls(let connection): bytes.withUnsafeBytes { connection.write($0) }
    }
  }

  /// Ends the sending side after queued output, still reading (TCP half-close; under TLS,
  /// `close_notify` first): ``close()`` or the peer's EOF ends the rest.
  public func shutdownOutput() {
    switch self {
    case .tcp(let connection): connection.shutdownOutput()
    case .tls(let connection): connection.shutdownOutput()
    }
  }

  /// Queues the UTF-8 of `string` (encrypting it first under TLS).
  @inlinable public func write(string: String) {
    switch self {
    case .tcp(let connection): connection.write(string: string)
    case .tls(let connection): connection.write(string: string)
    }
  }

  /// Closes once queued output is flushed (under TLS, after sending `close_notify`). The
  /// delegate then hears ``ByteStreamDelegate/stream(_:didCloseWith:)``.
  public func close() {
    switch self {
    case .tcp(let connection): connection.close()
    case .tls(let connection): connection.close()
    }
  }

  /// Drops queued output and resets the TCP connection (a peer that stopped reading would
  /// otherwise hold the socket open).
  public func reset() { tcp.reset() }

  /// `true` when both are the same connection (not merely connections to the same peer):
  /// how an owner that replaces its stream drops the events of an earlier one.
  public static func === (lhs: ByteStream, rhs: ByteStream) -> Bool {
    switch (lhs, rhs) {
    case (.tcp(let a), .tcp(let b)): a === b
    case (.tls(let a), .tls(let b)): a === b
    case (.tcp, .tls), (.tls, .tcp): false
    }
  }
}

@available(*, unavailable)
extension ByteStream: Sendable {}

/// Why a ``ByteStream`` closed when the close was not orderly: the TCP connection's socket
/// error, or (under TLS) the ``TLSError``. Its description is the underlying error's.
public enum ByteStreamError: Error, Sendable, CustomStringConvertible {
  /// The TCP connection failed (`ws://`, `redis://`, `tcp://`).
  case io(IOError)
  /// The TLS connection failed or ended without `close_notify`.
  case tls(TLSError)

  /// The underlying error's description, unchanged.
  public var description: String {
    switch self {
    case .io(let error): error.description
    case .tls(let error): error.description
    }
  }
}
