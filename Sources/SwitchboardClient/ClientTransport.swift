import SwitchboardIO
import SwitchboardTLS

/// The byte stream under one ``ClientChannel``: plain TCP for `ws://`, TLS for `wss://`.
///
/// Both connections have the same shape (loop-bound, one delegate, writes queue,
/// `close` flushes first), so the channel's handshake and frame code runs unchanged on
/// either; this enum is the only place that tells them apart. Output limits and
/// backpressure always come from the TCP connection (under TLS, its ciphertext buffer).
enum ClientTransport {
  case tcp(TCPConnection)
  case tls(TLSConnection)

  /// The TCP connection carrying the bytes (for TLS, the one under the session).
  var tcp: TCPConnection {
    switch self {
    case .tcp(let connection): connection
    case .tls(let connection): connection.tcp
    }
  }

  /// `true` once the connection is closed; writes are then dropped.
  var isClosed: Bool {
    switch self {
    case .tcp(let connection): connection.isClosed
    case .tls(let connection): connection.isClosed
    }
  }

  /// `false` while output is above the TCP connection's high-water mark.
  var isWritable: Bool { tcp.isWritable }

  /// Bytes queued on the socket and not yet taken by the kernel.
  var bufferedBytes: Int { tcp.bufferedBytes }

  /// Points the connection's events at `channel`.
  func attach(to channel: ClientChannel) {
    switch self {
    case .tcp(let connection): connection.delegate = channel
    case .tls(let connection): connection.delegate = channel
    }
  }

  /// Stops the connection's events reaching the channel.
  func detach() {
    switch self {
    case .tcp(let connection): connection.delegate = nil
    case .tls(let connection): connection.delegate = nil
    }
  }

  /// Queues `bytes` (encrypting them first under TLS).
  func write(_ bytes: [UInt8]) {
    switch self {
    case .tcp(let connection):
      // One `memcpy` into the connection's buffer type (`SharedBytes.init(_:)` copies
      // element by element, which is slow for large messages in debug builds).
      connection.write(bytes.withUnsafeBytes { SharedBytes(copying: $0) })
    case .tls(let connection):
      connection.write(bytes)
    }
  }

  /// Closes once queued output is flushed (under TLS, after sending `close_notify`).
  func close() {
    switch self {
    case .tcp(let connection): connection.close()
    case .tls(let connection): connection.close()
    }
  }

  /// Drops queued output and resets the TCP connection (a peer that stopped reading
  /// would otherwise hold the socket open).
  func reset() {
    tcp.reset()
  }
}

@available(*, unavailable)
extension ClientTransport: Sendable {}
