import SwitchboardRESP

/// Why a Redis command, connection or URL failed.
///
/// Match on ``kind`` (`error.kind == .timeout`) and, for errors the server sent, on
/// ``prefix`` — the first word of Redis's error (`NOSCRIPT`, `MOVED`, `WRONGTYPE`,
/// `WRONGPASS`, `NOAUTH`, `ERR` …). ``message`` is the whole text for people.
public struct RedisError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The kind of failure; new kinds may be added.
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
      case connectionLost, timeout, server, protocolError, limit, closed, connectFailed, invalidURL,
        unsupported
    }
    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// The connection went away with the command sent and no reply: the command may or may
    /// not have run. (Commands are never re-sent on a new connection for that reason.)
    public static let connectionLost = Kind(.connectionLost)
    /// No reply within the command's timeout (the connection is then reset and reconnected:
    /// replies are matched by order, and a server this late is treated as unreachable), or
    /// no connection within the connect timeout.
    public static let timeout = Kind(.timeout)
    /// The server answered with an error reply (``RedisError/prefix`` says which).
    public static let server = Kind(.server)
    /// The server's bytes were not RESP, or a reply came that nobody asked for.
    public static let protocolError = Kind(.protocolError)
    /// A limit was exceeded: one of the decoder's ``RESPLimits`` (the connection is closed
    /// and reconnected), or too many commands waiting (``RedisConfiguration/maxPendingCommands``).
    public static let limit = Kind(.limit)
    /// The client was closed (by ``RedisClient/close()``) before the command completed.
    public static let closed = Kind(.closed)
    /// The TCP connect or the TLS handshake failed, or the handshake (`HELLO`, `AUTH`,
    /// `SELECT`) was refused.
    public static let connectFailed = Kind(.connectFailed)
    /// A `redis://` URL that cannot be used.
    public static let invalidURL = Kind(.invalidURL)
    /// A command this connection cannot carry: on a ``RedisClient``, `SUBSCRIBE` and its
    /// relatives and `MONITOR` (they change how the server answers; use ``RedisSubscriber``).
    public static let unsupported = Kind(.unsupported)

    /// The kind in words (`timeout`, `server error` …).
    public var description: String {
      switch code {
      case .connectionLost: "connection lost"
      case .timeout: "timeout"
      case .server: "server error"
      case .protocolError: "protocol error"
      case .limit: "limit exceeded"
      case .closed: "closed"
      case .connectFailed: "connect failed"
      case .invalidURL: "invalid URL"
      case .unsupported: "unsupported"
      }
    }
  }

  /// What kind of failure.
  public let kind: Kind
  /// The first word of a server error (`NOSCRIPT`, `MOVED` …); `nil` for other kinds.
  public let prefix: String?
  /// What happened, for people.
  public let message: String
  /// The decoder's error, for ``Kind/protocolError`` and decoder limits.
  public let decodingError: RESPError?

  init(_ kind: Kind, _ message: String, prefix: String? = nil, decodingError: RESPError? = nil) {
    self.kind = kind
    self.message = message
    self.prefix = prefix
    self.decodingError = decodingError
  }

  /// An error reply from the server; its prefix is the first word of `message`.
  public static func server(_ message: String) -> RedisError {
    let word = message.prefix(while: { $0 != " " })
    return RedisError(.server, message, prefix: word.isEmpty ? nil : String(word))
  }

  /// The decoder failed on the server's bytes.
  static func decoding(_ error: RESPError) -> RedisError {
    let isLimit =
      error == .bulkTooLarge || error == .tooManyElements || error == .tooDeep || error == .bufferFull
      || error == .lineTooLong
    return RedisError(isLimit ? .limit : .protocolError, error.message, decodingError: error)
  }

  static func connectionLost(_ message: String) -> RedisError { RedisError(.connectionLost, message) }
  static func timeout(_ message: String) -> RedisError { RedisError(.timeout, message) }
  static func closed(_ message: String = "the client was closed") -> RedisError {
    RedisError(.closed, message)
  }
  static func connectFailed(_ message: String) -> RedisError { RedisError(.connectFailed, message) }
  static func invalidURL(_ message: String) -> RedisError { RedisError(.invalidURL, message) }
  static func protocolError(_ message: String) -> RedisError { RedisError(.protocolError, message) }
  static func limit(_ message: String) -> RedisError { RedisError(.limit, message) }

  /// `kind: message`.
  public var description: String { "\(kind): \(message)" }

  /// Equal when kind and prefix are, whatever the messages.
  public static func == (lhs: RedisError, rhs: RedisError) -> Bool {
    lhs.kind == rhs.kind && lhs.prefix == rhs.prefix
  }
}
