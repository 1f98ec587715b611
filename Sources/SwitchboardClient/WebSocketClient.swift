import SwitchboardHTTP
import SwitchboardIO
import SwitchboardTLS
import SwitchboardWebSocket

/// A WebSocket client connection (RFC 6455, with optional RFC 7692 permessage-deflate).
///
/// ```swift
/// let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:8080/chat")
/// try await client.send(text: "hello")
/// for await event in client.events {
///   if case .text(let reply) = event { print(reply); break }
/// }
/// await client.close()
/// ```
///
/// The socket runs on a `SwitchboardIO` event loop; every method here is safe to call
/// from any task or thread. Sends are handed to the loop in call order and each leaves
/// as whole frames, so concurrent senders never interleave inside a message and one
/// caller's messages keep their order.
///
/// Received messages arrive on ``events``, a single-consumer stream that ends with
/// ``Event/closed(code:reason:)``. Cancelling the task that iterates it closes the
/// connection (close code 1001, `.goingAway`). Releasing the last reference to the client
/// also closes the connection (1001), so keep the client while you use ``events``.
///
/// `wss://` runs the same protocol over TLS, verified against the system's trust store
/// by default; ``Configuration/tls`` trusts a private CA, pins a key or names the
/// server.
public final class WebSocketClient: Sendable {
  /// The URL connected to.
  public let url: WebSocketURL
  /// The server's `101 Switching Protocols` response: status, reason and headers.
  public let response: HTTPResponseHead
  /// The subprotocol the server chose, if any.
  public let subprotocol: String?
  /// The permessage-deflate parameters in force, or `nil` when messages are not
  /// compressed.
  public let compressionParameters: PerMessageDeflate.Parameters?
  /// Everything the server sent, in order, ending with ``Event/closed(code:reason:)``.
  ///
  /// The buffer is **unbounded**: messages read from the socket wait here until
  /// consumed, so a consumer that stops reading lets memory grow (each message is
  /// bounded by ``Configuration/maxMessageSize``). Iterate it from one task only.
  public let events: AsyncStream<Event>
  /// The event loop the socket runs on.
  public let eventLoop: EventLoop

  private let channel: LoopBound<ClientChannel>
  private let lifecycle: ClientLifecycle

  /// Whether permessage-deflate was negotiated (offer it with
  /// ``Configuration/compression``).
  public var isCompressed: Bool { compressionParameters != nil }

  private init(
    url: WebSocketURL, outcome: HandshakeOutcome, events: AsyncStream<Event>,
    channel: LoopBound<ClientChannel>,
    lifecycle: ClientLifecycle
  ) {
    self.url = url
    self.response = outcome.response
    self.subprotocol = outcome.subprotocol
    self.compressionParameters = outcome.deflate
    self.events = events
    self.eventLoop = channel.loop
    self.channel = channel
    self.lifecycle = lifecycle
  }

  deinit {
    let channel = self.channel
    channel.loop.execute { channel.value.abandon() }
  }

  // MARK: Connecting

  /// Connects to a `ws://` or `wss://` `host[:port][/path][?query]` URL and performs the
  /// opening handshake (after the TLS handshake for `wss://`).
  /// - Parameters:
  ///   - url: The URL as text.
  ///   - configuration: Headers, subprotocols, compression, TLS, limits and timeouts.
  /// - Returns: The open connection.
  /// - Throws: ``WebSocketClientError``: ``WebSocketClientError/invalidURL``,
  ///   ``WebSocketClientError/unsupportedScheme``, ``WebSocketClientError/connectFailed``
  ///   (refused, unreachable, unknown host), ``WebSocketClientError/tlsFailed``
  ///   (certificate, name, pin or TLS handshake), ``WebSocketClientError/timeout``,
  ///   ``WebSocketClientError/handshakeRejected`` (any status but 101),
  ///   ``WebSocketClientError/handshakeInvalid`` or ``WebSocketClientError/cancelled``.
  public static func connect(
    to url: String, configuration: Configuration = Configuration()
  ) async throws(WebSocketClientError) -> WebSocketClient {
    try await connect(to: try WebSocketURL(url), configuration: configuration)
  }

  /// Connects to a parsed URL and performs the opening handshake.
  ///
  /// Host names are resolved with `getaddrinfo` on the calling thread before the
  /// connect timeout starts; numeric addresses and `localhost` need no lookup.
  /// - Parameters:
  ///   - url: The URL.
  ///   - configuration: Headers, subprotocols, compression, TLS, limits and timeouts.
  /// - Returns: The open connection.
  /// - Throws: The same errors as connecting with the URL as text.
  public static func connect(
    to url: WebSocketURL, configuration: Configuration = Configuration()
  ) async throws(WebSocketClientError) -> WebSocketClient {
    // Built here, off the loop: loading the system trust store reads files.
    let tls: ClientTLSSettings?
    switch url.scheme {
    case .ws:
      tls = nil
    case .wss:
      let settings = configuration.tls ?? TLSConfiguration()
      do {
        tls = ClientTLSSettings(
          context: try TLSContext(configuration: settings), serverName: settings.serverName ?? url.host)
      } catch {
        throw .tlsFailed(error)
      }
    }
    let loop: EventLoop
    switch configuration.eventLoopGroup.map({ Result<EventLoopGroup, IOError>.success($0) }) ?? sharedGroup {
    case .success(let group): loop = group.next()
    case .failure(let error): throw .connectFailed(error)
    }
    let address: SocketAddress
    do {
      address = try SocketAddress.resolve(host: url.host, port: url.port)
    } catch {
      throw .connectFailed(error)
    }

    let (inner, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
    let progress = ConsumerProgress()
    let events = progress.counting(inner)
    let lifecycle = ClientLifecycle()
    let channel = LoopBound(
      sending: ClientChannel(
        url: url, configuration: configuration, tls: tls, lifecycle: lifecycle, events: continuation,
        progress: progress, loop: loop),
      on: loop)
    continuation.onTermination = { [weak channel] termination in
      // The consumer's task was cancelled: close the connection.
      guard case .cancelled = termination, let channel else { return }
      channel.loop.execute { channel.value.startClose(code: .goingAway, reason: "") }
    }

    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { (completion: ConnectCompletion) in
        loop.execute { channel.value.start(address: address, completion: completion) }
      }
    } onCancel: {
      loop.execute { channel.value.cancelConnect() }
    }
    switch result {
    case .success(let outcome):
      configuration.logger.debug(
        "WebSocket connected",
        metadata: [
          "url": "\(url)", "subprotocol": outcome.subprotocol ?? "none", "compressed": "\(outcome.deflate != nil)",
        ])
      return WebSocketClient(
        url: url, outcome: outcome, events: events, channel: channel, lifecycle: lifecycle)
    case .failure(let error):
      configuration.logger.debug("WebSocket connect failed", metadata: ["url": "\(url)", "error": "\(error)"])
      throw error
    }
  }

  /// Connects, runs `body` with the connection, and closes it when `body` returns or
  /// throws (close code 1000, `.normalClosure`, or 1011, `.unexpectedServerError`, when
  /// `body` threw).
  /// - Parameters:
  ///   - url: The URL as text.
  ///   - configuration: Headers, subprotocols, compression, TLS, limits and timeouts.
  ///   - body: Uses the connection.
  /// - Returns: What `body` returned.
  /// - Throws: A ``WebSocketClientError`` from connecting, or what `body` threw.
  public static func withConnection<R>(
    to url: String, configuration: Configuration = Configuration(),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (WebSocketClient) async throws -> R
  ) async throws -> R {
    let client = try await connect(to: url, configuration: configuration)
    let result: R
    do {
      result = try await body(client)
    } catch {
      await client.close(code: .unexpectedServerError, reason: "")
      throw error
    }
    await client.close()
    return result
  }

  // MARK: Sending

  /// Sends a text message (compressed when permessage-deflate is in use).
  ///
  /// Returns once the frame is queued on the socket and the output buffer is below its
  /// high-water mark (256 KiB), so a sender cannot outrun a slow server.
  /// - Throws: ``WebSocketClientError/closed`` when the connection is closing or closed.
  public func send(text: String) async throws(WebSocketClientError) {
    try await perform(.text(text))
  }

  /// Sends a binary message (compressed when permessage-deflate is in use).
  ///
  /// Returns once the frame is queued on the socket and the output buffer is below its
  /// high-water mark (256 KiB).
  /// - Throws: ``WebSocketClientError/closed`` when the connection is closing or closed.
  public func send(binary: [UInt8]) async throws(WebSocketClientError) {
    try await perform(.binary(binary))
  }

  /// Sends a ping; the server's pong arrives as ``Event/pong(_:)``.
  /// - Parameter payload: Up to 125 bytes of application data.
  /// - Throws: ``WebSocketClientError/protocolError`` for a payload over 125 bytes,
  ///   ``WebSocketClientError/closed`` when the connection is closing or closed.
  public func ping(_ payload: [UInt8] = []) async throws(WebSocketClientError) {
    guard payload.count <= 125 else {
      throw .protocolError(code: .protocolError, "a ping payload is at most 125 bytes, not \(payload.count)")
    }
    try await perform(.ping(payload))
  }

  private func perform(_ message: OutboundMessage) async throws(WebSocketClientError) {
    if let error = lifecycle.sendError { throw error }
    let channel = self.channel
    let result = await withCheckedContinuation { (completion: SendCompletion) in
      channel.loop.execute { channel.value.send(message, completion: completion) }
    }
    try result.get()
  }

  // MARK: Closing

  /// Performs the close handshake: sends a close frame, waits for the server's close
  /// frame and for the server to close TCP, each bounded by
  /// ``Configuration/closeTimeout``, then closes the socket. Returns when the socket is
  /// closed. Calling it again, or after the server closed, just waits for that.
  ///
  /// Messages that arrive before the server's close frame are still delivered on
  /// ``events``; sends made after this call throw ``WebSocketClientError/closed``.
  /// - Parameters:
  ///   - code: The close code (default 1000, `.normalClosure`). Integer literals convert,
  ///     so an application code reads `close(code: 4000)`.
  ///   - reason: The reason, cut to 123 bytes of UTF-8.
  public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") async {
    let channel = self.channel
    let lifecycle = self.lifecycle
    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
      switch lifecycle.requestClose(waiter) {
      case .start:
        channel.loop.execute { channel.value.startClose(code: code, reason: reason) }
      case .wait:
        break
      case .done:
        waiter.resume()
      }
    }
  }
}
