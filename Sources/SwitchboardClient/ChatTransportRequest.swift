import SwitchboardIO
import SwitchboardLog
import SwitchboardTLS

/// What a ``ChatTransport`` is asked to open: the endpoint (already resolved when it named a
/// DNS-SD service), what to send first, and the settings of
/// ``ChatClient/Configuration`` that concern a transport.
public struct ChatTransportRequest: Sendable {
  /// Where to connect: a host or address, a port, and the scheme that picks the dialect
  /// (`ws`/`wss`: WebSocket with the JSON protocol; `tcp`/`tls`: lines; `udp`: datagrams).
  /// Never a service endpoint: the client resolves those first.
  public var endpoint: ChatEndpoint
  /// The WebSocket URL to open for `ws`/`wss`, the endpoint's with the room, the name, the
  /// resume point (`since`, `epoch`) and the token in its query, as the client builds it for
  /// this attempt. Unused by the other schemes.
  public var webSocketURL: String
  /// The units a `tcp`/`tls`/`udp` transport sends first, in order, before the connect
  /// returns: `auth:TOKEN` (tcp/tls, with a token), `iam:NAME`, `/join ROOM`. A `udp`
  /// transport sends them once the server has accepted its address (the address proof of docs/PROTOCOLS.md).
  /// Empty for WebSocket (the URL carries them).
  public var hello: [String]
  /// The time allowed to connect (the TCP connect, the TLS and WebSocket handshakes, the
  /// UDP address proof): past it, throw ``ChatClientError/timeout(_:)``.
  public var connectTimeout: Duration
  /// Trust settings for `tls` and `wss` as configured (``ChatClient/Configuration/tls``);
  /// `nil` means the defaults. ``tlsConfiguration`` is what to use.
  public var tls: TLSConfiguration?
  /// Offer permessage-deflate on WebSocket (``ChatClient/Configuration/compression``); a
  /// transport that cannot may ignore it (the server does not require it).
  public var compression: Bool
  /// The heartbeat's quiet interval when it is on (``ChatClient/Heartbeat/interval``):
  /// stream transports may set TCP keepalive to it; `nil` when the heartbeat is off.
  public var keepAlive: Duration?
  /// The event loops a socket-based transport may run on
  /// (``ChatClient/Configuration/eventLoopGroup``); `nil`: its own choice.
  public var eventLoopGroup: EventLoopGroup?
  /// The client's logger (``ChatClient/Configuration/logger``).
  public var logger: Log

  /// A request; the client makes one per connect attempt, tests and wrappers may too.
  public init(
    endpoint: ChatEndpoint, webSocketURL: String, hello: [String], connectTimeout: Duration = .seconds(10),
    tls: TLSConfiguration? = nil, compression: Bool = false, keepAlive: Duration? = nil,
    eventLoopGroup: EventLoopGroup? = nil, logger: Log = .disabled
  ) {
    self.endpoint = endpoint
    self.webSocketURL = webSocketURL
    self.hello = hello
    self.connectTimeout = connectTimeout
    self.tls = tls
    self.compression = compression
    self.keepAlive = keepAlive
    self.eventLoopGroup = eventLoopGroup
    self.logger = logger
  }

  /// The TLS settings to connect `tls`/`wss` with: ``tls`` (or the defaults) with the
  /// endpoint's host as the server name when none is set; `nil` for the plain schemes.
  public var tlsConfiguration: TLSConfiguration? {
    guard endpoint.scheme == .tls || endpoint.scheme == .wss else { return nil }
    var configuration = tls ?? TLSConfiguration()
    if configuration.serverName == nil { configuration.serverName = endpoint.host }
    return configuration
  }
}
