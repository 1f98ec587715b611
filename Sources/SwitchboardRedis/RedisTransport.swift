import SwitchboardIO
import SwitchboardTLS

/// The byte stream under a ``RedisConnection``: plain TCP for `redis://`, TLS for
/// `rediss://`. The one place the two are told apart.
enum RedisTransport {
  case tcp(TCPConnection)
  case tls(TLSConnection)

  /// The TCP connection carrying the bytes (under TLS, the one below the session).
  var tcp: TCPConnection {
    switch self {
    case .tcp(let connection): connection
    case .tls(let connection): connection.tcp
    }
  }

  /// Queues `bytes` (encrypted first under TLS).
  func write(_ bytes: [UInt8]) {
    switch self {
    case .tcp(let connection): connection.write(bytes.withUnsafeBytes { SharedBytes(copying: $0) })
    case .tls(let connection): connection.write(bytes)
    }
  }

  /// Closes once queued output is flushed.
  func close() {
    switch self {
    case .tcp(let connection): connection.close()
    case .tls(let connection): connection.close()
    }
  }

  /// Drops queued output and resets the connection (for a server that stopped answering).
  func reset() { tcp.reset() }
}

@available(*, unavailable)
extension RedisTransport: Sendable {}
