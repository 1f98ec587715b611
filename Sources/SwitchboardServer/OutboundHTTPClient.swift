import Dispatch
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardTLS

/// The server's small HTTP/1.1 client for calling out to an app's backend (webhooks, the auth
/// hook): `POST`s a body to an `http://` or `https://` URL and reports the answer through a
/// completion.
///
/// It never blocks the caller: a request is handed to the client's own event loop (a thread
/// of its own unless you pass a loop), which connects with the non-blocking TCP (or TLS)
/// machinery the server's sockets use; host names are resolved on a Dispatch worker. Every
/// request ends exactly once, on the client's loop, with a 2xx ``OutboundHTTPResponse`` or
/// an ``OutboundHTTPError``: the timeout covers connecting and the whole answer, the answer's
/// body is bounded by ``OutboundHTTPConfiguration/maxAnswerBytes``, and requests in flight
/// by ``OutboundHTTPConfiguration/maxInFlight``. Connections are kept alive and reused per
/// origin; a reused connection the peer closed meanwhile is retried once on a new one when
/// not one byte of an answer came.
///
/// ```swift
/// let client = try OutboundHTTPClient()
/// let url = try OutboundURL("http://127.0.0.1:8080/hooks")
/// client.post(url, headers: ["Content-Type": "application/json"], body: Array(json.utf8)) { result in
///   // on the client's loop: hop to your own before touching loop-bound state
/// }
/// ```
public final class OutboundHTTPClient: Sendable {
  /// The loop requests run on, and completions are called on.
  public let loop: EventLoop
  /// The client's settings.
  public let configuration: OutboundHTTPConfiguration
  private let ownsLoop: Bool
  private let pool: LoopBound<OutboundConnectionPool>

  /// A client on a loop of its own (one new thread).
  /// - Throws: ``SwitchboardIO/IOError`` when the loop cannot start.
  public convenience init(configuration: OutboundHTTPConfiguration = OutboundHTTPConfiguration()) throws(IOError) {
    try self.init(configuration: configuration, loop: EventLoop(index: 0), ownsLoop: true)
  }

  /// A client on `loop` (shared with other work: its requests never block it).
  public convenience init(configuration: OutboundHTTPConfiguration = OutboundHTTPConfiguration(), on loop: EventLoop) {
    self.init(configuration: configuration, loop: loop, ownsLoop: false)
  }

  private init(configuration: OutboundHTTPConfiguration, loop: EventLoop, ownsLoop: Bool) {
    self.loop = loop
    self.configuration = configuration
    self.ownsLoop = ownsLoop
    pool = LoopBound(sending: OutboundConnectionPool(configuration: configuration, loop: loop), on: loop)
  }

  /// Posts `body` to `url` with `headers` (`Host`, `Content-Length` and `Connection` are the
  /// client's) and calls `completion` once, on ``loop``. Callable from any thread.
  /// - Parameter timeout: overrides ``OutboundHTTPConfiguration/timeout``.
  public func post(
    _ url: OutboundURL, headers: HTTPHeaders = [:], body: [UInt8], timeout: Duration? = nil,
    completion: @escaping @Sendable (Result<OutboundHTTPResponse, OutboundHTTPError>) -> Void
  ) {
    let pool = pool
    let timeout = timeout ?? configuration.timeout
    let start: @Sendable () -> Void = {
      pool.value.start(
        OutboundRequest(url: url, method: "POST", headers: headers, body: body, timeout: timeout), completion)
    }
    if loop.inEventLoop { start() } else { loop.execute(start) }
  }

  /// Posts and waits for the answer (see ``post(_:headers:body:timeout:completion:)``).
  public func post(
    _ url: OutboundURL, headers: HTTPHeaders = [:], body: [UInt8], timeout: Duration? = nil
  ) async -> Result<OutboundHTTPResponse, OutboundHTTPError> {
    await withCheckedContinuation { continuation in
      post(url, headers: headers, body: body, timeout: timeout) { continuation.resume(returning: $0) }
    }
  }

  /// Fails every request still in flight with ``OutboundHTTPError/closed``, closes idle
  /// connections and (for a client with a loop of its own) stops the loop. Call from outside
  /// the loop.
  public func shutdown() {
    let pool = pool
    loop.runAndWait { pool.value.shutdown() }
    if ownsLoop { loop.shutdownGracefully() }
  }
}

/// One request as the pool runs it.
struct OutboundRequest: Sendable {
  let url: OutboundURL
  let method: String
  let headers: HTTPHeaders
  let body: [UInt8]
  let timeout: Duration

  /// The request's bytes: head and body.
  func encode() -> [UInt8] {
    var fields = HTTPHeaders()
    fields.add(name: "Host", value: url.hostHeader)
    for (name, value) in headers {
      let lower = name.lowercased()
      if lower == "host" || lower == "content-length" || lower == "connection" || lower == "transfer-encoding" {
        continue
      }
      fields.add(name: name, value: value)
    }
    fields.add(name: "Content-Length", value: "\(body.count)")
    var bytes = HTTPRequestHead(method: method, target: url.target, headers: fields).encode()
    bytes.append(contentsOf: body)
    return bytes
  }
}

/// Where an idle keep-alive connection goes: scheme, host and port.
struct OutboundOrigin: Hashable {
  let scheme: OutboundURL.Scheme
  let host: String
  let port: Int

  init(_ url: OutboundURL) {
    scheme = url.scheme
    host = url.host
    port = url.port
  }
}

/// The loop side of an ``OutboundHTTPClient``: requests in flight, idle connections per
/// origin, the TLS context. Loop thread only.
final class OutboundConnectionPool: ByteStreamDelegate {
  typealias Completion = @Sendable (Result<OutboundHTTPResponse, OutboundHTTPError>) -> Void

  private struct Idle {
    let stream: ByteStream
    let since: Deadline
  }

  let configuration: OutboundHTTPConfiguration
  let loop: EventLoop
  private var exchanges: [ObjectIdentifier: OutboundExchange] = [:]
  private var idle: [OutboundOrigin: [Idle]] = [:]
  private var tlsContext: TLSContext?
  private var isShutDown = false

  init(configuration: OutboundHTTPConfiguration, loop: EventLoop) {
    self.configuration = configuration
    self.loop = loop
  }

  func start(_ request: OutboundRequest, _ completion: @escaping Completion) {
    guard !isShutDown else { return completion(.failure(.closed)) }
    guard exchanges.count < configuration.maxInFlight else { return completion(.failure(.overloaded)) }
    let exchange = OutboundExchange(request: request, pool: self, completion: completion)
    exchanges[ObjectIdentifier(exchange)] = exchange
    exchange.begin()
  }

  func finished(_ exchange: OutboundExchange) {
    exchanges[ObjectIdentifier(exchange)] = nil
  }

  func shutdown() {
    isShutDown = true
    for list in idle.values { for entry in list { entry.stream.close() } }
    idle.removeAll()
    for exchange in exchanges.values { exchange.fail(.closed) }
  }

  /// An idle connection to `origin` still fresh, if any (newest first).
  func takeIdle(_ origin: OutboundOrigin) -> ByteStream? {
    let now = Deadline.now()
    while var list = idle[origin], let entry = list.popLast() {
      idle[origin] = list.isEmpty ? nil : list
      entry.stream.detach()
      if !entry.stream.isClosed, entry.since.adding(configuration.idleTimeout) > now { return entry.stream }
      entry.stream.close()
    }
    return nil
  }

  /// Keeps `stream` for the next request to `origin` (or closes it when enough are kept).
  func park(_ stream: ByteStream, origin: OutboundOrigin) {
    var list = idle[origin] ?? []
    guard !isShutDown, !stream.isClosed, list.count < configuration.maxIdlePerOrigin else { return stream.close() }
    stream.attach(self)
    list.append(Idle(stream: stream, since: Deadline.now()))
    idle[origin] = list
  }

  func context() throws -> TLSContext {
    if let tlsContext { return tlsContext }
    let made = try TLSContext(configuration: configuration.tls)
    tlsContext = made
    return made
  }

  private func forget(_ stream: ByteStream) {
    for (origin, list) in idle where list.contains(where: { $0.stream === stream }) {
      let rest = list.filter { !($0.stream === stream) }
      idle[origin] = rest.isEmpty ? nil : rest
    }
  }

  // An idle connection hears nothing but its close: bytes before a request (the framing is
  // broken) or an EOF end it.
  func stream(_ stream: ByteStream, didRead bytes: UnsafeRawBufferPointer) {
    forget(stream)
    stream.reset()
  }

  func streamDidReadEOF(_ stream: ByteStream) {
    forget(stream)
    stream.close()
  }

  func stream(_ stream: ByteStream, didCloseWith error: ByteStreamError?) {
    forget(stream)
  }
}

/// One request's life: resolving, connecting, waiting for the head, reading the body.
final class OutboundExchange: ByteStreamDelegate {
  private enum State {
    case resolving
    case connecting
    case awaitingHead(ByteStream, HTTPResponseParser)
    case readingBody(ByteStream, HTTPResponseHead, HTTPResponseBodyReader)
    /// Parsing what `stream` delivered (the parser or reader is out of the state meanwhile,
    /// so appending to it does not copy it).
    case parsing(ByteStream)
    case finished
  }

  let request: OutboundRequest
  private unowned let pool: OutboundConnectionPool
  private let completion: OutboundConnectionPool.Completion
  private let origin: OutboundOrigin
  private var state = State.resolving
  private var timer: Scheduled?
  /// Whether the current stream came from the idle pool (a stale one may be retried).
  private var reused = false
  private var answeredAnyByte = false

  init(request: OutboundRequest, pool: OutboundConnectionPool, completion: @escaping OutboundConnectionPool.Completion) {
    self.request = request
    self.pool = pool
    self.completion = completion
    origin = OutboundOrigin(request.url)
  }

  func begin() {
    timer = pool.loop.scheduleLocal(after: request.timeout) { [weak self] in self?.expire() }
    if let stream = pool.takeIdle(origin) {
      reused = true
      send(on: stream)
    } else {
      connect()
    }
  }

  private func expire() {
    guard case .finished = state else { return fail(.timeout) }
  }

  private func connect() {
    reused = false
    let url = request.url
    if let address = try? SocketAddress(host: url.host, port: url.port) {
      open(address)
      return
    }
    state = .resolving
    // getaddrinfo blocks: resolve on a worker, come back to the loop.
    let bound = LoopBound(self, on: pool.loop)
    DispatchQueue.global().async {
      let result = Result { () throws(IOError) in try SocketAddress.resolve(host: url.host, port: url.port) }
      bound.loop.execute {
        let exchange = bound.value
        guard case .resolving = exchange.state else { return }
        switch result {
        case .success(let address): exchange.open(address)
        case .failure(let error): exchange.fail(.connect("\(url.host): \(error)"))
        }
      }
    }
  }

  private func open(_ address: SocketAddress) {
    state = .connecting
    switch request.url.scheme {
    case .http:
      TCPConnection.connect(to: address, on: pool.loop) { [self] result in
        switch result {
        case .success(let connection): connected(.tcp(connection))
        case .failure(let error): connectFailed("\(address): \(error)")
        }
      }
    case .https:
      let context: TLSContext
      do {
        context = try pool.context()
      } catch {
        return fail(.connect("TLS: \(error)"))
      }
      TLSConnection.connect(to: address, serverName: request.url.host, context: context, on: pool.loop) {
        [self] result in
        switch result {
        case .success(let connection): connected(.tls(connection))
        case .failure(let error): connectFailed("\(address): \(error)")
        }
      }
    }
  }

  private func connectFailed(_ why: String) {
    guard case .connecting = state else { return }
    fail(.connect(why))
  }

  private func connected(_ stream: ByteStream) {
    guard case .connecting = state else { return stream.close() }
    send(on: stream)
  }

  private func send(on stream: ByteStream) {
    answeredAnyByte = false
    stream.attach(self)
    state = .awaitingHead(stream, HTTPResponseParser())
    stream.write(request.encode())
  }

  // MARK: The answer

  func stream(_ stream: ByteStream, didRead bytes: UnsafeRawBufferPointer) {
    answeredAnyByte = true
    switch state {
    case .awaitingHead(let current, var parser) where current === stream:
      state = .parsing(stream)
      parser.append(bytes)
      readHead(stream, parser)
    case .readingBody(let current, let head, var reader) where current === stream:
      state = .parsing(stream)
      reader.append(bytes)
      readBody(stream, head, reader)
    default:
      stream.reset()
    }
  }

  private func readHead(_ stream: ByteStream, _ parser: HTTPResponseParser) {
    var parser = parser
    let head: HTTPResponseHead
    do {
      // 1xx answers (100 Continue) come before the real one.
      while true {
        guard let next = try parser.next() else {
          state = .awaitingHead(stream, parser)
          return
        }
        if !(100..<200).contains(next.status) {
          head = next
          break
        }
      }
    } catch {
      return fail(.malformed(error.message), stream: stream)
    }
    let framing: HTTPResponseBodyReader.Framing
    do {
      framing = try HTTPResponseBodyReader.framing(of: head, method: request.method)
    } catch {
      return fail(.malformed(error.message), stream: stream)
    }
    var reader = HTTPResponseBodyReader(framing: framing, maxBodySize: pool.configuration.maxAnswerBytes)
    reader.append(parser.takeRemainingBytes())
    readBody(stream, head, reader)
  }

  private func readBody(_ stream: ByteStream, _ head: HTTPResponseHead, _ reader: HTTPResponseBodyReader) {
    var reader = reader
    let body: [UInt8]
    do {
      guard let complete = try reader.next() else {
        state = .readingBody(stream, head, reader)
        return
      }
      body = complete
    } catch {
      return fail(error == .bodyTooLarge ? .tooLarge : .malformed(error.message), stream: stream)
    }
    let reusable =
      !reader.hasExtraBytes && reader.framing != .untilClose && head.version >= .http1_1
      && !head.headers.contains(token: "close", in: "Connection")
    finish(head, body, stream: stream, reusable: reusable)
  }

  func streamDidReadEOF(_ stream: ByteStream) {
    if case .readingBody(let current, let head, var reader) = state, current === stream,
      reader.framing == .untilClose, let body = reader.finishAtClose()
    {
      return finish(head, body, stream: stream, reusable: false)
    }
    lost(stream, "the peer closed before a complete answer")
  }

  func stream(_ stream: ByteStream, didCloseWith error: ByteStreamError?) {
    lost(stream, error.map { "\($0)" } ?? "the connection closed before a complete answer")
  }

  private func lost(_ stream: ByteStream, _ why: String) {
    switch state {
    case .awaitingHead(let current, _) where current === stream:
      if reused && !answeredAnyByte {
        // A kept-alive connection the peer closed while it sat idle: once, on a fresh one.
        stream.detach()
        stream.close()
        connect()
        return
      }
      fail(.connect(why), stream: stream)
    case .readingBody(let current, _, _) where current === stream:
      fail(.connect(why), stream: stream)
    default:
      break
    }
  }

  // MARK: Ending

  private func finish(_ head: HTTPResponseHead, _ body: [UInt8], stream: ByteStream, reusable: Bool) {
    guard end() else { return }
    stream.detach()
    if reusable { pool.park(stream, origin: origin) } else { stream.close() }
    if (200..<300).contains(head.status) {
      completion(.success(OutboundHTTPResponse(status: head.status, headers: head.headers, body: body)))
    } else {
      completion(.failure(.status(head.status)))
    }
  }

  /// Ends the request with `error`, resetting its connection (a late answer must not reach
  /// the next request).
  func fail(_ error: OutboundHTTPError, stream: ByteStream? = nil) {
    let current: ByteStream? =
      switch state {
      case .awaitingHead(let stream, _), .readingBody(let stream, _, _), .parsing(let stream): stream
      default: stream
      }
    guard end() else { return }
    if let current {
      current.detach()
      current.reset()
    }
    completion(.failure(error))
  }

  /// Moves to `.finished` once; `false` when already there.
  private func end() -> Bool {
    if case .finished = state { return false }
    state = .finished
    timer?.cancel()
    timer = nil
    pool.finished(self)
    return true
  }
}
