import SwitchboardAuth
import SwitchboardChat
import SwitchboardIO
import SwitchboardLog

/// Everything `switchboard serve` can be told. The defaults are the CLI's (`switchboard serve
/// --help`; limits and retention in docs/OPERATIONS.md).
public struct ServerConfiguration: Sendable {
  /// The address every listener binds (`0.0.0.0`: all IPv4 interfaces; `::` all).
  public var host = "0.0.0.0"
  /// TCP line chat port; 0 with `tcpEnabled == false` turns it off.
  public var tcpPort = 8080
  /// UDP datagram chat port.
  public var udpPort = 8081
  /// HTTP + WebSocket port.
  public var httpPort = 1337
  /// Listeners that are on. `--tcp-port 0` on the command line turns one off; tests
  /// that want a kernel-chosen port set the port to 0 and leave the listener on.
  public var tcpEnabled = true
  public var udpEnabled = true
  public var httpEnabled = true
  /// HTTPS + WSS port, on when ``tlsCertificates`` is not empty and ``httpsEnabled``.
  public var httpsPort = 1443
  /// `tls://` line chat port, on when ``tlsCertificates`` is not empty and ``tlsEnabled``.
  public var tlsPort = 8443
  public var httpsEnabled = true
  public var tlsEnabled = true
  /// The certificates of the TLS listeners (the first is the default, the others are
  /// picked by SNI). Empty (the default): no TLS listeners.
  public var tlsCertificates: [ServerCertificate] = []
  /// A TLS connection whose handshake is not done after this long is closed.
  public var tlsHandshakeTimeout: Duration = .seconds(10)
  /// The room new members land in.
  public var defaultRoom = "lobby"
  /// Messages kept per room.
  public var historyLimit = 1000
  /// The longest TCP line, in bytes, before it is rejected with `! line too long`.
  public var maxLineLength = 64 * 1024
  /// The largest WebSocket message, in bytes.
  public var maxMessageSize = 1024 * 1024
  /// The largest UDP datagram accepted (bigger ones are dropped and counted).
  public var maxDatagramSize = 64 * 1024
  /// A TCP sender that pauses this long without a newline has sent a message.
  public var linePause: Duration = .milliseconds(50)
  /// A TCP member that has not said `iam:` after this long joins as `Client N`.
  public var nameWait: Duration = .milliseconds(300)
  /// A UDP sender stays a member this long after its last datagram.
  public var udpMemberTTL: Duration = .seconds(60)
  /// Buffered output per connection above which the peer is dropped as too slow.
  public var maxBufferedPerConnection = 4 * 1024 * 1024
  /// How long a slow consumer's farewell (1008 "slow consumer", `! too slow,
  /// disconnected`) may wait behind what the kernel still holds before the connection is
  /// reset.
  public var slowConsumerFarewellTime: Duration = .seconds(2)
  /// More Prometheus text appended to `GET /metrics` (the CLI adds the history store's
  /// statistics). Called on a loop for every scrape: keep it quick.
  public var additionalMetrics: (@Sendable () -> String)? = nil
  /// Messages sent in the `history` frame when a WebSocket client joins without `since`.
  public var historyOnJoin = 100
  /// Idle WebSocket connections are pinged this often; one that has not answered by the
  /// next tick is closed.
  public var webSocketPingInterval: Duration = .seconds(30)
  /// Connection caps, timeouts and rate limits (docs/SECURITY.md, "Limits").
  public var limits = ServerLimits()
  /// Event loops (default: one per core).
  public var loopCount = System.coreCount
  /// The readiness backend.
  public var backend = SelectorBackend.platformDefault
  /// The advertised instance name.
  public var instanceName = "Switchboard"
  /// Whether to advertise over mDNS.
  public var advertise = true
  /// Makes the room broker: where rooms' ids and history live (called once, by
  /// ``ChatServer/init(configuration:)``, with this configuration; what it throws is
  /// reported as a ``ServerError``). `nil`, the default, is a ``LocalRoomBroker`` keeping
  /// `historyLimit` messages per room in memory. `switchboard serve` passes a local broker
  /// over a SQLite store (unless `--ephemeral`), so the server itself links no store.
  public var broker: (@Sendable (ServerConfiguration) throws -> any RoomBroker)? = nil
  /// Where the server logs (the CLI gives its history store the same logger). The default writes nothing;
  /// `switchboard serve` sets one that writes to stderr at `--log-level`.
  public var logger = Log.disabled
  /// Checks signed tokens (`--auth-secret`, `--auth-public-key`): with one, every WebSocket
  /// upgrade and line connection needs a good token, names come from its `sub` and rooms
  /// from its `rooms`, and the UDP port answers every datagram with a refusal. `nil`, the
  /// default, checks none (docs/SECURITY.md, "Tokens in the server").
  public var tokenVerifier: TokenVerifier? = nil
  /// How long before a connection's token runs out the server asks for a fresh one
  /// (`--token-refresh-lead`; docs/SECURITY.md, "Token refresh"): a `token_expiring` frame or
  /// a `* token expires in N s` line, at most half the time the token has left when it is
  /// accepted. `nil`: no notice (the connection is closed at expiry all the same).
  public var tokenRefreshLead: Duration? = .seconds(60)
  /// The app's backend that admits, renames or refuses each connection when it names itself
  /// (`--auth-proxy`; docs/API.md, "Auth proxy"); `nil`, the default, asks nobody.
  public var authProxy: AuthProxyConfiguration? = nil
  /// Which browser origins may open a WebSocket (`--allow-origin`; docs/SECURITY.md, "Origin
  /// policy"). The default allows the server's own pages and clients that send no `Origin`.
  public var originPolicy = OriginPolicy()
  /// Which `Host` names the HTTP listeners answer (`--allow-host`; docs/SECURITY.md, "Host
  /// names"): the guard against DNS rebinding. The default allows this machine's names and
  /// every IP address, names without a dot, `localhost` and the mDNS `.local` name.
  public var hostPolicy = HostPolicy()
  /// The server API for the app's backend (`--api-key`; docs/API.md): off by default.
  public var api = ServerAPIConfiguration()
  /// The admin console under `/admin` (`--admin-password`; docs/OPERATIONS.md, "The admin
  /// console"): off by default.
  public var admin = AdminConfiguration()

  public init() {}

  /// A configuration for tests: loopback, kernel-chosen ports, nothing advertised, history
  /// in memory.
  public static func loopbackForTesting() -> ServerConfiguration {
    var c = ServerConfiguration()
    c.host = "127.0.0.1"
    c.tcpPort = 0
    c.udpPort = 0
    c.httpPort = 0
    c.httpsPort = 0
    c.tlsPort = 0
    c.advertise = false
    c.loopCount = 2
    return c
  }

  var hubConfiguration: HubConfiguration {
    var h = HubConfiguration()
    h.defaultRoom = defaultRoom
    h.historyLimit = historyLimit
    h.uniqueNames = tokenVerifier == nil
    return h
  }
}
