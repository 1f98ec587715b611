import SwitchboardLog
import SwitchboardRESP
import SwitchboardTLS

/// How a ``RedisClient`` or ``RedisSubscriber`` connects and behaves.
public struct RedisConfiguration: Sendable {
  /// Which RESP version to ask for.
  public enum ProtocolVersion: Sendable, Hashable {
    /// `HELLO 3`; when the server refuses it (Redis before 6, or `HELLO` renamed away), the
    /// connection falls back to RESP2 with `AUTH`.
    case resp3
    /// RESP2 only (`AUTH`, no `HELLO`).
    case resp2
  }

  /// Server, login and database.
  public var url: RedisURL
  /// RESP3 (the default, falling back to RESP2) or RESP2.
  public var protocolVersion: ProtocolVersion
  /// For `rediss://`: trust roots and pins. `nil` means the system's trust store, with the
  /// URL's host as the name to verify.
  public var tls: TLSConfiguration?
  /// Time allowed for one connection attempt: TCP connect, TLS handshake and the login
  /// (`HELLO`/`AUTH`/`SELECT`, and for a subscriber re-subscribing). 5 s by default.
  public var connectTimeout: Duration
  /// Time a command may wait for its reply, counted from when it was asked for (so it
  /// includes waiting for a connection); each call may give its own. 5 s by default.
  public var commandTimeout: Duration
  /// How long to wait between reconnect attempts.
  public var backoff: RedisBackoff
  /// Most commands waiting for a connection or a reply at once; beyond, a command fails at
  /// once with ``RedisError/Kind/limit``. 1,000,000 by default.
  public var maxPendingCommands: Int
  /// The decoder's limits for the server's replies.
  public var limits: RESPLimits
  /// The connection's name in `CLIENT LIST` (sent with `HELLO … SETNAME`, or `CLIENT
  /// SETNAME` under RESP2); `nil` sends none.
  public var clientName: String?
  /// Where the client logs connects, losses and reconnects; disabled by default.
  public var logger: Log

  /// A configuration for `url`; every other setting has its default.
  public init(
    url: RedisURL, protocolVersion: ProtocolVersion = .resp3, tls: TLSConfiguration? = nil,
    connectTimeout: Duration = .seconds(5), commandTimeout: Duration = .seconds(5),
    backoff: RedisBackoff = RedisBackoff(), maxPendingCommands: Int = 1_000_000,
    limits: RESPLimits = .default,
    clientName: String? = nil, logger: Log = .disabled
  ) {
    self.url = url
    self.protocolVersion = protocolVersion
    self.tls = tls
    self.connectTimeout = connectTimeout
    self.commandTimeout = commandTimeout
    self.backoff = backoff
    self.maxPendingCommands = maxPendingCommands
    self.limits = limits
    self.clientName = clientName
    self.logger = logger
  }

  /// A configuration from URL text (`redis://…` or `rediss://…`).
  /// - Throws: ``RedisError`` of kind ``RedisError/Kind/invalidURL``.
  public init(_ url: String) throws(RedisError) {
    self.init(url: try RedisURL(url))
  }
}
