import SwitchboardChat
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardLog
import SwitchboardTLS

/// One HTTP/1.1 connection (the HTTP port, or a browser on the line port): the web page,
/// `/healthz`, `/readyz`, `/metrics`, the server API under `/api/` (HTTPSession+API.swift),
/// keep-alive, and the hand-over to WebSocket on an upgrade.
final class HTTPSession: ByteStreamDelegate {
  /// Where the connection stands.
  enum Phase {
    /// Serving requests. `idle`: closed silently then, 30 s after its last byte (slowloris
    /// guard); `request`: answered 408 then, while a request is awaited or arriving and
    /// `--http-request-timeout` is on. The loop's HTTP sweep checks both
    /// (LoopContext+HTTPDeadlines.swift): a session holds no timer of its own.
    case serving(idle: Deadline, request: Deadline?)
    /// Waiting for the room broker to answer a server API request (HTTPSession+API.swift):
    /// answered 504 at `until`; bytes arriving meanwhile are buffered (`buffered` of them),
    /// read once it is answered.
    case answering(until: Deadline, keepAlive: Bool, buffered: Int)
    /// Streaming the admin console's live view (HTTPSession+AdminEvents.swift) until the
    /// connection closes or the session ends: nothing more is read.
    case streaming(AdminStream)
    /// Handed to a WebSocket session, or answered and closing: nothing more is read or timed.
    case finished
  }

  /// How long a connection may stay silent.
  static let idleTimeout = Duration.seconds(30)

  let connection: ByteStream
  unowned let context: LoopContext
  var parser = HTTPRequestParser()
  var phase: Phase
  private let key: ObjectIdentifier

  init(connection: ByteStream, initialBytes: [UInt8], context: LoopContext) {
    self.connection = connection
    self.context = context
    self.key = ObjectIdentifier(connection.tcp)
    let now = Deadline.now()
    phase = .serving(idle: now.adding(Self.idleTimeout), request: Self.requestDeadline(after: now, context))
    connection.byteCounter = context.stats.http
    connection.attach(self)
    context.httpSessionOpened(self, key: key)
    if !initialBytes.isEmpty {
      parser.append(initialBytes)
      process()
    }
  }

  private static func requestDeadline(after now: Deadline, _ context: LoopContext) -> Deadline? {
    let timeout = context.configuration.limits.httpRequestTimeout
    return timeout > .zero ? now.adding(timeout) : nil
  }

  func stream(_ connection: ByteStream, didRead bytes: UnsafeRawBufferPointer) {
    if case .answering = phase { return bufferWhileAnswering(bytes) }
    guard case .serving(_, let request) = phase else { return }
    parser.append(bytes)
    // The request's deadline runs from its first byte after an answered one.
    let now = Deadline.now()
    let next = request ?? Self.requestDeadline(after: now, context)
    phase = .serving(idle: now.adding(Self.idleTimeout), request: next)
    process()
  }

  func process() {
    while case .serving(let idle, _) = phase {
      let request: HTTPRequest?
      do {
        request = try parser.next()
      } catch {
        respond(.error(error), keepAlive: false)
        return
      }
      guard let request else { return }
      phase = .serving(idle: idle, request: nil)
      context.metrics.httpRequests.add(1, ordering: .relaxed)
      if let refusal = hostRefusal(request.head) {
        respond(refusal, keepAlive: false)
        return
      }
      if request.head.isWebSocketUpgrade {
        upgrade(request.head)
        return
      }
      if ServerAPI.owns(request.head.path) {
        serveAPI(request)
        continue
      }
      if Self.ownsAdmin(request.head.path) {
        serveAdmin(request)
        continue
      }
      respond(route(request.head), keepAlive: request.head.keepAlive)
    }
  }

  private func route(_ head: HTTPRequestHead) -> HTTPResponse {
    guard head.method == "GET" || head.method == "HEAD" else {
      var r = HTTPResponse.text(405, "only GET and HEAD are served here\n")
      r.headers.add(name: "Allow", value: "GET, HEAD")
      return r
    }
    var response: HTTPResponse
    switch head.path {
    case "/", "/index.html":
      response = .html(200, WebChatPage.html)
    case "/healthz":
      response = .text(200, "ok\n")
    case "/readyz":
      response = readiness()
    case "/metrics":
      let counts = context.hub.counts
      response = .text(200, context.metrics.prometheusText(members: counts.members, rooms: counts.rooms))
      response.headers.replaceOrAdd(name: "Content-Type", value: "text/plain; version=0.0.4")
    default:
      if head.path.hasPrefix("/rooms/") {
        response = .html(200, WebChatPage.html)
      } else {
        response = .text(404, "not found: \(head.path)\n")
      }
    }
    if head.method == "HEAD" { response.body = [] }
    return response
  }

  /// The paths answered whatever the `Host`: probes and scrapers address the server by
  /// service names nobody lists, and these carry no chat (docs/SECURITY.md, "Host names").
  private static let anyHostPaths: Set<String> = ["/healthz", "/readyz", "/metrics"]

  /// `421 Misdirected Request` when `head` (a page, an upgrade, anything but a probe) names
  /// a `Host` the ``HostPolicy`` does not allow: a DNS-rebinding page; `nil` to go on. An
  /// upgrade without `Origin` is not checked: browsers always send one with an upgrade, so
  /// it is no page's (the CLI, the client library, a script), and rebinding is a browser's.
  private func hostRefusal(_ head: HTTPRequestHead) -> HTTPResponse? {
    if head.isWebSocketUpgrade {
      guard head.headers["Origin"] != nil else { return nil }
    } else if Self.anyHostPaths.contains(head.path) || ServerAPI.owns(head.path) {
      return nil
    }
    guard
      case .refused(let why) = context.configuration.hostPolicy.check(host: head.headers["Host"])
    else { return nil }
    context.metrics.limits.hostsRefused.add(1, ordering: .relaxed)
    context.logger.debug("request refused", metadata: .connection(peer: connection.remoteAddress, error: why))
    return .text(421, why + "\n")
  }

  /// `200 ready` while the server runs and its room broker can work; `503` with the reason
  /// while shutting down or while the broker is unavailable (a cluster broker that lost Redis).
  private func readiness() -> HTTPResponse {
    guard !context.core.shuttingDown.load(ordering: .relaxed) else {
      return .text(503, "not ready: shutting down\n")
    }
    switch context.hub.broker.health {
    case .ready:
      return .text(200, "ready\n")
    case .unavailable(let since, let reason):
      let time = LogTimestamp(seconds: since / 1000, nanoseconds: Int32(since % 1000) * 1_000_000)
      return .text(503, "not ready: \(reason) since \(time.rfc3339)\n")
    }
  }

  func respond(_ response: HTTPResponse, keepAlive: Bool) {
    var response = response
    if !keepAlive { response.headers.replaceOrAdd(name: "Connection", value: "close") }
    connection.write(response.encode())
    if !keepAlive || response.headers["Connection"]?.lowercased() == "close" {
      finish()
      connection.close()
    }
  }

  /// Hands the connection to a WebSocket session and leaves the loop's table: from here on
  /// the connection's delegate is the session. Kept in the table, every upgraded
  /// connection's HTTP session, parser buffer and timers stayed for the life of the loop,
  /// after the connection had closed too. When the upgrade is refused this object stays
  /// the delegate, and in the table until the close: a TLS connection holds its delegate
  /// weakly, and the close must still reach ``stream(_:didCloseWith:)`` (the caps).
  private func upgrade(_ head: HTTPRequestHead) {
    finish()
    let leftover = parser.takeRemainingBytes()
    if context.core.webSocketHandoff(connection, head, leftover, context) { context.httpSessionEnded(key: key) }
  }

  /// Carries out what is due at `now` (called by the loop's HTTP sweep): a request that has
  /// not fully arrived `--http-request-timeout` after its wait began is answered 408 and the
  /// connection closed; a connection silent for ``idleTimeout`` is closed.
  func checkDeadlines(now: Deadline) {
    if case .answering(let until, _, _) = phase, now >= until { return apiTimedOut() }
    guard case .serving(let idle, let request) = phase else { return }
    if let request, now >= request {
      context.metrics.limits.httpRequestTimeouts.add(1, ordering: .relaxed)
      respond(.text(408, "the request did not arrive in time\n"), keepAlive: false)
    } else if now >= idle {
      connection.close()
    }
  }

  private func finish() {
    phase = .finished
  }

  func streamDidReadEOF(_ connection: ByteStream) {
    connection.close()
  }

  func stream(_ connection: ByteStream, didCloseWith error: ByteStreamError?) {
    adminStreamClosed()
    finish()
    context.httpSessionEnded(key: key)
    context.connectionClosed(connection)
  }
}
