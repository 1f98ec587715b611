import SwitchboardWebSocket

/// A way to reach a server: opens one connection per call. ``ChatClient`` asks its
/// ``ChatClient/Configuration/transport`` for a connection on every connect attempt
/// (the first, and each reconnect), and owns what it gets for the life of that connection.
///
/// The built-in transports are in ``ChatTransports``: the POSIX sockets of
/// ``POSIXChatTransport`` (every platform; TLS through OpenSSL where it is linked) and, on
/// Apple platforms, Network.framework's. Write your own to carry the chat over something
/// else (a test double, a proxy, a different socket library): connect as
/// ``ChatTransportRequest`` says, then deliver what arrives as ``ChatTransportInput``.
///
/// ```swift
/// struct MyTransport: ChatTransport {
///   func connect(_ request: ChatTransportRequest) async throws(ChatClientError)
///     -> any ChatTransportConnection
///   {
///     switch request.endpoint.scheme {
///     case .tcp: return try await MyLineConnection.open(request)  // sends request.hello first
///     default: throw .unsupportedScheme("\(request.endpoint.scheme) is not mine")
///     }
///   }
/// }
/// var configuration = ChatClient.Configuration()
/// configuration.transport = MyTransport()
/// ```
public protocol ChatTransport: Sendable {
  /// Opens a connection to `request.endpoint` and returns it once it is usable: for the
  /// line and datagram dialects after ``ChatTransportRequest/hello`` has been sent; for
  /// WebSocket after the upgrade succeeded.
  ///
  /// Honour ``ChatTransportRequest/connectTimeout`` (throw ``ChatClientError/timeout(_:)``)
  /// and task cancellation (throw anything: the client is stopping). Failures to reach the
  /// server throw ``ChatClientError/connectFailed(_:)``; the client reports the error and
  /// retries by its ``ChatClient/Configuration/reconnect`` policy.
  func connect(_ request: ChatTransportRequest) async throws(ChatClientError) -> any ChatTransportConnection
}

/// One open connection of a ``ChatTransport``. The client reads ``inputs`` from one task and
/// calls ``send(_:)``, ``probe()`` and ``close()`` from others, so every member must be
/// safe to call concurrently.
public protocol ChatTransportConnection: Sendable {
  /// Everything received, in order, ending with one ``ChatTransportInput/closed(code:reason:)``
  /// after which the stream finishes. The client reads it from one task, once.
  var inputs: AsyncStream<ChatTransportInput> { get }
  /// The WebSocket upgrade response's header fields (shown in
  /// ``ChatClient/Connection/headers``); empty for the other transports.
  var headers: [ChatClient.Header] { get }
  /// Sends one unit as is: a JSON text frame (WebSocket), a line without its terminator
  /// (tcp/tls: the transport adds `\n`), or one datagram (udp). Returns once it is queued.
  /// - Throws: ``ChatClientError/closed(_:)`` when the connection can no longer send.
  func send(_ text: String) async throws(ChatClientError)
  /// Sends a liveness probe (``ChatClient/Heartbeat``): a WebSocket ping, or `/rooms` on
  /// the line and datagram dialects (whose reply the client swallows). Errors are ignored:
  /// an unanswered probe is what the heartbeat notices.
  func probe() async
  /// Closes the connection (or gives up connecting); ``inputs`` ends with `.closed` soon
  /// after. Does not wait; safe to call more than once.
  func close()
}

/// What a ``ChatTransportConnection`` delivers: text units, liveness signals, and the end.
public enum ChatTransportInput: Sendable, Hashable {
  /// One unit of text: a WebSocket text frame, a line (without its terminator), or one
  /// line of a datagram.
  case text(String)
  /// The server pinged (WebSocket; answering it is the transport's job).
  case ping
  /// The server answered a ping.
  case pong
  /// The connection ended (the stream finishes after this); `code` is the WebSocket close
  /// code, `nil` on the other transports; `reason` is for people (logs, events).
  case closed(code: WebSocketCloseCode?, reason: String)
}
