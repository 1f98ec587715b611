import SwitchboardHTTP
import SwitchboardIO
import SwitchboardTLS
import SwitchboardWebSocket

/// What a finished opening handshake agreed on.
struct HandshakeOutcome: Sendable {
  var response: HTTPResponseHead
  var subprotocol: String?
  var deflate: PerMessageDeflate.Parameters?
}

/// A message to encode and write, handed from any thread to the loop.
enum OutboundMessage: Sendable {
  case text(String)
  case binary([UInt8])
  case ping([UInt8])
}

typealias ConnectCompletion = CheckedContinuation<Result<HandshakeOutcome, WebSocketClientError>, Never>
typealias SendCompletion = CheckedContinuation<Result<Void, WebSocketClientError>, Never>

/// How a `wss://` channel sets up TLS: the context (trust roots, pins) and the name the
/// server must prove.
struct ClientTLSSettings: Sendable {
  var context: TLSContext
  var serverName: String
}

/// The socket side of one ``WebSocketClient``: the connection (a `ByteStream`: TCP, or
/// TLS over TCP), the opening handshake and the ``WebSocketConnection`` state machine,
/// on one event loop.
///
/// Plain synchronous code on the loop's thread (no locks, no async hops): the public
/// client reaches it with `loop.execute`, which runs tasks in submission order, so frames
/// leave whole and in the order their `send` calls were made. Events go out through the
/// `AsyncStream` continuation; lifecycle transitions go to ``ClientLifecycle``.
///
/// While the connection is open the channel keeps itself alive (a TLS connection holds its
/// delegate weakly), so a dropped client still finishes its close handshake.
final class ClientChannel {
  private enum Stage: Equatable {
    /// Created; ``start(address:completion:)`` not yet run.
    case idle
    /// The connecting task was cancelled before ``start(address:completion:)`` ran, which
    /// will then fail at once.
    case cancelledBeforeStart
    /// The TCP connect (and for `wss://` the TLS handshake) is in flight.
    case connecting
    /// The upgrade request is written; reading the response head.
    case handshaking
    /// The server answered the upgrade with another status than 101: reading the body it
    /// sent with it (its reason, e.g. `invalid room name …`), at most
    /// ``ClientChannel/maxRejectionBody`` bytes, then the connect fails with both.
    case readingRejection(HTTPResponseHead, body: [UInt8])
    /// WebSocket frames flow, including while this side's close frame awaits an answer.
    case open
    /// The WebSocket conversation is over; waiting for the server to close TCP.
    case closing
    /// The connection is closed or the connect failed.
    case closed
  }

  let loop: EventLoop
  private let configuration: WebSocketClient.Configuration
  /// `nil` for `ws://`.
  private let tls: ClientTLSSettings?
  private let request: WebSocketHandshake.ClientRequest
  private let lifecycle: ClientLifecycle
  private let events: AsyncStream<WebSocketClient.Event>.Continuation
  /// How many events the consumer has asked for (see `perform`).
  private let progress: ConsumerProgress
  /// Events yielded so far.
  private var yielded = 0
  /// Set while a protocol error waits for the consumer to answer the events before it;
  /// bounded by the close timeout.
  private var failureWait: Scheduled?

  private var stage = Stage.idle
  private var connectCompletion: ConnectCompletion?
  private var connection: ByteStream?
  private var parser = HTTPResponseParser()
  private var websocket: WebSocketConnection?
  /// The connect timeout, then the close timeout.
  private var timer: Scheduled?
  /// Senders whose frame is queued while the connection is over its high-water mark.
  private var writeWaiters: [SendCompletion] = []
  /// The code the WebSocket conversation ended with.
  private var closeCode: WebSocketCloseCode?
  private var keepAlive: ClientChannel?

  init(
    url: WebSocketURL, configuration: WebSocketClient.Configuration, tls: ClientTLSSettings?,
    lifecycle: ClientLifecycle, events: AsyncStream<WebSocketClient.Event>.Continuation,
    progress: ConsumerProgress, loop: EventLoop
  ) {
    self.loop = loop
    self.progress = progress
    self.configuration = configuration
    self.tls = tls
    self.lifecycle = lifecycle
    self.events = events
    request = WebSocketHandshake.clientRequest(
      host: url.hostHeader, path: url.target, subprotocols: configuration.subprotocols,
      extraHeaders: configuration.extraHeaders,
      deflate: configuration.compression ? PerMessageDeflate.Parameters() : nil)
  }

  // MARK: Connecting

  /// Opens the connection (TCP, then TLS for `wss://`) and sends the upgrade request;
  /// `completion` gets the handshake's outcome. The connect timeout covers all of it.
  func start(address: SocketAddress, completion: ConnectCompletion) {
    loop.assertInEventLoop()
    guard stage == .idle else {
      stage = .closed
      events.finish()
      completion.resume(returning: .failure(.cancelled))
      return
    }
    connectCompletion = completion
    stage = .connecting
    let timeout = configuration.connectTimeout
    timer = loop.scheduleLocal(after: timeout) { [weak self] in
      self?.failConnect(.timeout("no WebSocket handshake from \(address) within \(timeout)"))
    }
    if let tls {
      TLSConnection.connect(to: address, serverName: tls.serverName, context: tls.context, on: loop) { result in
        switch result {
        case .success(let connection): self.connectFinished(.tls(connection))
        case .failure(let error): self.failConnect(Self.connectError(error))
        }
      }
    } else {
      TCPConnection.connect(to: address, on: loop) { result in
        switch result {
        case .success(let connection): self.connectFinished(.tcp(connection))
        case .failure(let error): self.failConnect(.connectFailed(error))
        }
      }
    }
  }

  /// A TCP connect failure stays ``WebSocketClientError/connectFailed`` under TLS; the
  /// rest (verification, pins, handshake) is ``WebSocketClientError/tlsFailed``.
  private static func connectError(_ error: TLSError) -> WebSocketClientError {
    if error == .connectFailed, let ioError = error.ioError { return .connectFailed(ioError) }
    return .tlsFailed(error)
  }

  /// The connecting task was cancelled.
  func cancelConnect() {
    switch stage {
    case .idle: stage = .cancelledBeforeStart
    case .connecting, .handshaking, .readingRejection: failConnect(.cancelled)
    case .cancelledBeforeStart, .open, .closing, .closed: break
    }
  }

  private func connectFinished(_ connection: ByteStream) {
    guard stage == .connecting else {
      // Timed out or cancelled while the connect was in flight.
      connection.close()
      return
    }
    connection.attach(self)
    // The client applies backpressure itself: a `send` returns only once the output
    // is below the high-water mark, so the buffer holds at most that plus one message
    // per concurrent sender. The default cap (4 MiB) would reset a connection that
    // sends one large message.
    connection.tcp.limits.maximumBuffered = .max
    self.connection = connection
    keepAlive = self
    stage = .handshaking
    connection.write(request.requestBytes)
  }

  private func failConnect(_ error: WebSocketClientError) {
    switch stage {
    case .connecting, .handshaking, .readingRejection: break
    case .idle, .cancelledBeforeStart, .open, .closing, .closed: return
    }
    guard let completion = connectCompletion else { return }
    connectCompletion = nil
    timer?.cancel()
    timer = nil
    stage = .closed
    if let connection {
      self.connection = nil
      connection.detach()
      connection.close()
    }
    keepAlive = nil
    events.finish()
    lifecycle.finished(code: nil)
    completion.resume(returning: .failure(error))
  }

  private func readHandshake(_ bytes: UnsafeRawBufferPointer) {
    parser.append(bytes)
    let head: HTTPResponseHead
    do {
      guard let parsed = try parser.next() else { return }
      head = parsed
    } catch {
      failConnect(.handshakeInvalid("malformed HTTP response: \(error)"))
      return
    }
    guard head.status == 101 else {
      stage = .readingRejection(head, body: [])
      readRejection(head, body: [], more: parser.takeRemainingBytes())
      return
    }
    let agreed: WebSocketHandshake.ClientRequest.Result
    do {
      agreed = try request.validate(head)
    } catch {
      failConnect(.handshakeInvalid(error.message))
      return
    }
    let leftover = parser.takeRemainingBytes()
    timer?.cancel()
    timer = nil
    let limits = WebSocketConfiguration(
      maxFrameSize: configuration.maxFrameSize, maxMessageSize: configuration.maxMessageSize)
    if let provider = configuration.maskKeyProvider {
      websocket = WebSocketConnection(
        role: .client, configuration: limits, deflate: agreed.deflate, maskKeyProvider: provider)
    } else {
      websocket = WebSocketConnection(role: .client, configuration: limits, deflate: agreed.deflate)
    }
    stage = .open
    let completion = connectCompletion
    connectCompletion = nil
    completion?.resume(
      returning: .success(
        HandshakeOutcome(response: head, subprotocol: agreed.subprotocol, deflate: agreed.deflate)))
    // Frames the server sent right behind its 101 (events are buffered in the stream).
    if !leftover.isEmpty, websocket != nil {
      leftover.withUnsafeBytes { perform($0) }
    }
  }

  /// The most of a refused upgrade's body kept: enough for a reason, not for a page.
  static let maxRejectionBody = 1024

  /// More of a refused upgrade's body: fails the connect with the status and the body once
  /// `Content-Length` bytes (at most ``maxRejectionBody``) are in.
  private func readRejection(_ head: HTTPResponseHead, body: [UInt8], more: some Collection<UInt8>) {
    var body = body
    body.append(contentsOf: more.prefix(max(0, Self.maxRejectionBody - body.count)))
    let expected = min(Int(head.headers["Content-Length"] ?? "") ?? 0, Self.maxRejectionBody)
    if body.count >= expected {
      failRejected(head, body: body)
    } else {
      stage = .readingRejection(head, body: body)
    }
  }

  private func failRejected(_ head: HTTPResponseHead, body: [UInt8]) {
    failConnect(
      .handshakeRejected(
        status: head.status, reason: head.reason, body: String(decoding: body, as: UTF8.self)))
  }

  // MARK: Messages

  /// Decodes and carries out one action at a time (see `WebSocketConnection.nextAction()`).
  ///
  /// When the next action fails the connection while the consumer still holds events it
  /// has not answered, the close frame waits (at most the close timeout) until the
  /// consumer asks for the next event: its replies to the earlier messages, sent from its
  /// own task, then leave before the close frame, as RFC 6455 asks.
  private func perform(_ bytes: UnsafeRawBufferPointer, waitingForConsumer: Bool = true) {
    websocket?.append(bytes)
    guard failureWait == nil else { return }
    while websocket != nil {
      if waitingForConsumer && progress.requestedCount <= yielded && websocket?.failsNext() == true {
        waitForConsumer()
        return
      }
      guard let action = websocket?.nextAction() else { return }
      switch action {
      case .text(let text): yield(.text(text))
      case .binary(let bytes): yield(.binary(bytes))
      case .ping(let payload): yield(.ping(payload))
      case .pong(let payload): yield(.pong(payload))
      case .send(let bytes): connection?.write(bytes)
      case .close(let code, let reason): webSocketFinished(code: code, reason: reason)
      }
    }
  }

  private func yield(_ event: WebSocketClient.Event) {
    yielded += 1
    events.yield(event)
  }

  private func waitForConsumer() {
    let bound = LoopBound(self, on: loop)
    failureWait = loop.scheduleLocal(after: configuration.closeTimeout) { bound.value.consumerCaughtUp(force: true) }
    progress.onNextRequest { [loop] in loop.execute { bound.value.consumerCaughtUp(force: false) } }
    // A request may have come before the waiter was registered.
    if progress.requestedCount > yielded { consumerCaughtUp(force: false) }
  }

  private func consumerCaughtUp(force: Bool) {
    guard failureWait != nil, force || progress.requestedCount > yielded else { return }
    failureWait?.cancel()
    failureWait = nil
    progress.cancelWaiter()
    if stage == .open, websocket != nil { perform(UnsafeRawBufferPointer(start: nil, count: 0), waitingForConsumer: !force) }
  }

  /// Encodes and queues one message. `completion` is resumed once the output buffer is
  /// below its high-water mark (backpressure), or with `.closed`.
  func send(_ message: OutboundMessage, completion: SendCompletion) {
    guard stage == .open, let connection, websocket != nil else {
      completion.resume(returning: .failure(.closed(code: closeCode)))
      return
    }
    let bytes: [UInt8]?
    switch message {
    case .text(let text): bytes = websocket?.sendText(text)
    case .binary(let binary): bytes = websocket?.sendBinary(binary)
    case .ping(let payload): bytes = websocket?.ping(payload)
    }
    guard let bytes else {
      completion.resume(returning: .failure(.closed(code: closeCode, reason: "close handshake in progress")))
      return
    }
    connection.write(bytes)
    if connection.isClosed {
      completion.resume(returning: .failure(.closed(code: closeCode)))
    } else if connection.isWritable {
      completion.resume(returning: .success(()))
    } else {
      writeWaiters.append(completion)
    }
  }

  private func resumeWriteWaiters(_ result: Result<Void, WebSocketClientError>) {
    let waiters = writeWaiters
    writeWaiters = []
    for waiter in waiters { waiter.resume(returning: result) }
  }

  // MARK: Closing

  /// Sends a close frame and waits (bounded by the close timeout) for the server's.
  func startClose(code: WebSocketCloseCode, reason: String) {
    guard stage == .open, let connection, let bytes = websocket?.close(code: code, reason: reason) else {
      return
    }
    connection.write(bytes)
    armCloseTimer()
  }

  /// The client was released: close politely ("going away") if still open.
  func abandon() {
    if stage == .open { startClose(code: .goingAway, reason: "") }
  }

  /// The WebSocket conversation is over: tell the consumer, then wait (bounded) for the
  /// server to close the connection, as RFC 6455 section 7.1.1 asks of clients.
  private func webSocketFinished(code: WebSocketCloseCode?, reason: String) {
    guard stage == .open else { return }
    stage = .closing
    closeCode = code
    lifecycle.webSocketClosed(code: code)
    events.yield(.closed(code: code, reason: reason))
    events.finish()
    resumeWriteWaiters(.failure(.closed(code: code)))
    armCloseTimer()
  }

  private func armCloseTimer() {
    timer?.cancel()
    timer = loop.scheduleLocal(after: configuration.closeTimeout) { [weak self] in self?.closeTimedOut() }
  }

  private func closeTimedOut() {
    timer = nil
    if stage == .open {
      webSocketFinished(
        code: .abnormalClosure, reason: "no close frame from the server within \(configuration.closeTimeout)")
    }
    guard let connection else { return }
    // `close()` would wait for a peer that does not read to take the queued output.
    if connection.bufferedBytes > 0 { connection.reset() } else { connection.close() }
  }

  // MARK: Connection events (from either transport)

  private func didRead(_ bytes: UnsafeRawBufferPointer) {
    switch stage {
    case .handshaking: readHandshake(bytes)
    case .readingRejection(let head, let body): readRejection(head, body: body, more: bytes)
    case .open: if websocket != nil { perform(bytes) }
    case .idle, .cancelledBeforeStart, .connecting, .closing, .closed: break
    }
  }

  /// The server finished sending (TCP FIN, or TLS `close_notify`).
  private func didReadEOF() {
    switch stage {
    case .handshaking:
      failConnect(.handshakeInvalid("connection closed before the handshake response was complete"))
    case .readingRejection(let head, let body):
      failRejected(head, body: body)
    case .open:
      webSocketFinished(code: .abnormalClosure, reason: "connection closed without a close frame")
      connection?.close()
    case .idle, .cancelledBeforeStart, .connecting, .closing, .closed:
      connection?.close()
    }
  }

  private func writabilityChanged(_ writable: Bool) {
    if writable { resumeWriteWaiters(.success(())) }
  }

  /// The connection closed; `error` describes why when it was not orderly.
  private func didClose(error: String?) {
    switch stage {
    case .connecting, .handshaking:
      failConnect(
        .handshakeInvalid("connection closed during the handshake" + (error.map { ": \($0)" } ?? "")))
      return
    case .readingRejection(let head, let body):
      failRejected(head, body: body)
      return
    case .open:
      webSocketFinished(code: .abnormalClosure, reason: error ?? "connection lost")
    case .idle, .cancelledBeforeStart, .closing, .closed:
      break
    }
    timer?.cancel()
    timer = nil
    self.connection = nil
    stage = .closed
    resumeWriteWaiters(.failure(.closed(code: closeCode)))
    lifecycle.finished(code: closeCode)
    keepAlive = nil
  }
}

extension ClientChannel: ByteStreamDelegate {
  func stream(_ stream: ByteStream, didRead bytes: UnsafeRawBufferPointer) { didRead(bytes) }
  func streamDidReadEOF(_ stream: ByteStream) { didReadEOF() }
  func stream(_ stream: ByteStream, writabilityChanged writable: Bool) { writabilityChanged(writable) }
  func stream(_ stream: ByteStream, didCloseWith error: ByteStreamError?) { didClose(error: error?.description) }
}

@available(*, unavailable)
extension ClientChannel: Sendable {}
