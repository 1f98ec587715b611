import SwitchboardDiscovery
import SwitchboardIO
import SwitchboardLog
import SwitchboardTLS

extension ChatClient {
  /// How a ``ChatClient`` connects, stays connected and queues.
  public struct Configuration: Sendable {
    /// The time allowed for resolving, connecting and (for WebSocket) the handshake, or
    /// (for UDP) the address proof the server asks for (default 10 s). Exceeding it counts as a failed
    /// attempt: ``Event/error(_:)`` with ``ChatClientError/timeout``, then a retry.
    public var connectTimeout: Duration
    /// When to reconnect after a failed connect or a lost connection.
    public var reconnect: ReconnectPolicy
    /// Liveness probing on every transport.
    public var heartbeat: Heartbeat
    /// How many sent messages may wait for a connection (or for their
    /// acknowledgement) at once (default 1000). ``ChatClient/send(_:)`` beyond it throws
    /// ``ChatClientError/queueFull`` at once.
    public var maxQueuedMessages: Int
    /// Offer permessage-deflate on WebSocket connections (default off).
    public var compression: Bool
    /// Trust settings for `tls://` and `wss://`. `nil`
    /// (the default) uses the system trust store and the URL's host as server name.
    public var tls: TLSConfiguration?
    /// The event loops to run sockets on; `nil` uses the shared one-loop group of
    /// ``WebSocketClient``.
    public var eventLoopGroup: EventLoopGroup?
    /// Where the client logs connects, disconnects and reconnect attempts (every line
    /// carries `endpoint`). The default writes nothing.
    public var logger = Log.disabled
    /// How a service endpoint (``ChatEndpoint/service``) is found, before every connect
    /// attempt. The default, ``platformResolver``, is ``NetworkServiceResolver`` on Apple
    /// platforms (`NWBrowser`) and ``DNSSDResolver`` on ``DiscoveryBackend/auto`` elsewhere;
    /// both browse for up to 5 s. An attempt whose service is not found counts as failed
    /// (``Event/error(_:)`` with ``ChatClientError/serviceNotFound``, or
    /// ``ChatClientError/localNetworkDenied`` when the system refuses local network access,
    /// then a retry).
    public var resolver: any ChatServiceResolver = Configuration.platformResolver
    /// A bearer token (a signed JWT) presented on every connect, or `nil` (the default) for
    /// none. `ws://`/`wss://` send it as the `token` query item of the upgrade request;
    /// `tcp://`/`tls://` send `auth:TOKEN` as the first line, before `iam:NAME`. The UDP
    /// dialect has no place for it: `udp://` connects without it. A server that checks
    /// tokens takes the name and the rooms allowed from it; a server that does not treats
    /// the `auth:` line as any other line of text (a chat message), so give a token only to
    /// a server that asks for one.
    ///
    /// Sugar for a ``tokenProvider`` that returns it; a provider, when set, wins.
    public var token: String?
    /// Where fresh tokens come from (docs/CLIENT.md, "Tokens that expire"): called before
    /// every connect attempt, and again when the server says the connection's token is about
    /// to run out (a `token_expiring` frame, a `* token expires in N s` line), whose answer is
    /// sent as a refresh (`{"type":"refresh",…}`, an `auth:TOKEN` line) so the connection
    /// stays. A provider that throws fails that connect attempt
    /// (``ChatClientError/tokenUnavailable``, then a retry) or that refresh (the event, and
    /// the server closes the connection when its token runs out). `nil` (the default):
    /// ``token``, fixed.
    public var tokenProvider: (@Sendable () async throws -> String)?
    /// When a `tcp://`/`tls://` send completes (default ``LineSendCompletion/written``).
    public var lineSendCompletion = LineSendCompletion.written
    /// Where the client hears of network path changes while it runs (docs/CLIENT.md, "App
    /// lifecycle"): a path that comes back or moves to other interfaces reconnects at once;
    /// while there is no path, a lost connection waits for one instead of spending reconnect
    /// attempts. The default is ``SystemPathMonitor`` (`NWPathMonitor`) on Apple platforms and
    /// `nil` (no monitor) elsewhere; ``ChatClient/networkPathChanged(_:)`` takes reports from
    /// a monitor of the app's own.
    public var pathMonitor: (any ChatPathMonitor)? = Configuration.defaultPathMonitor
    /// What opens each connection (default ``ChatTransports/system``: Network.framework on
    /// Apple platforms, the POSIX sockets elsewhere). Set your own ``ChatTransport`` to carry
    /// the chat over something else; docs/CLIENT.md, "Transports".
    public var transport: any ChatTransport = ChatTransports.system
    /// The protocol features to ask the server for on every connect (default none: the wire
    /// is what it was before negotiation). On ws/wss the client sends a `features` frame
    /// first; on tcp/tls ``Feature/typing`` adds `/typing on` to the hello; UDP has none. The
    /// answer is ``Event/features(_:)`` and ``ChatClient/serverFeatures`` (an older server's
    /// refusal reads as ``ServerFeatures/none``, not as an error). docs/CLIENT.md, "Typing
    /// indicators".
    public var features: Set<Feature> = []

    /// Creates a configuration; every parameter has the documented default.
    public init(
      connectTimeout: Duration = .seconds(10), reconnect: ReconnectPolicy = ReconnectPolicy(),
      heartbeat: Heartbeat = Heartbeat(), maxQueuedMessages: Int = 1000, compression: Bool = false,
      tls: TLSConfiguration? = nil, eventLoopGroup: EventLoopGroup? = nil
    ) {
      self.connectTimeout = connectTimeout
      self.reconnect = reconnect
      self.heartbeat = heartbeat
      self.maxQueuedMessages = max(1, maxQueuedMessages)
      self.compression = compression
      self.tls = tls
      self.eventLoopGroup = eventLoopGroup
    }

    /// The platform's monitor: `NWPathMonitor` where Network.framework exists.
    static var defaultPathMonitor: (any ChatPathMonitor)? {
      #if canImport(Network)
        SystemPathMonitor()
      #else
        nil
      #endif
    }
  }

  /// When a send on the line dialect (`tcp://`, `tls://`), which has no acknowledgement,
  /// completes.
  public enum LineSendCompletion: Sendable, Hashable {
    /// Once its lines are handed to the socket: the cheapest, and the server may not have
    /// read them yet when the send returns.
    case written
    /// Once the server has handled it: each message is followed by `/who`, and the send
    /// completes on the `* in ROOM (N): …` reply. A server handles one connection's lines
    /// in order, so the reply means the message was read and published; an `! …` error
    /// line before the reply fails the send with ``ChatClientError/serverError``.
    case handled
  }

  /// Liveness probing. When nothing has arrived for ``interval``, the client sends a
  /// probe; when nothing at all arrives within ``timeout`` of the probe, the connection
  /// is declared dead (``Event/viabilityChanged(_:)`` `false` at half the timeout,
  /// then ``Event/disconnected(reason:code:)`` and a reconnect).
  ///
  /// The probe per transport:
  /// - WebSocket: a ping; the pong, or any frame, answers it.
  /// - TCP/TLS lines: `/rooms`, whose `* rooms: …` reply is swallowed (any line answers
  ///   it); the socket also has TCP keepalive on (idle = ``interval``).
  /// - UDP: `/rooms`; the server's `Server received: /rooms` echo (or any datagram)
  ///   answers it. The probe also keeps the sender a member (the server forgets a UDP
  ///   address after 60 s of silence), so keep ``interval`` under that.
  public struct Heartbeat: Sendable, Hashable {
    /// Quiet time before a probe (default 15 s).
    public var interval: Duration
    /// How long a probe may go unanswered (default 10 s).
    public var timeout: Duration
    /// Whether probing is on (default `true`).
    public var isEnabled: Bool

    /// Creates heartbeat settings.
    public init(interval: Duration = .seconds(15), timeout: Duration = .seconds(10), isEnabled: Bool = true) {
      self.interval = interval
      self.timeout = timeout
      self.isEnabled = isEnabled
    }

    /// No probing: a dead peer is noticed only when TCP says so.
    public static let disabled = Heartbeat(isEnabled: false)
  }
}
