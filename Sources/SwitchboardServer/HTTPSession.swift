import SwitchboardChat
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardLog

/// One HTTP/1.1 connection (the HTTP port, or a browser on the line port): the web page,
/// `/healthz`, `/readyz`, `/metrics`, keep-alive, and the hand-over to WebSocket on an upgrade.
final class HTTPSession: TCPConnectionDelegate {
  let connection: TCPConnection
  unowned let context: LoopContext
  private var parser = HTTPRequestParser()
  private var idleTimer: Scheduled?
  /// Runs while a request is awaited or arriving (`--http-request-timeout`): slowloris guard.
  private var requestTimer: Scheduled?
  private var done = false
  private let key: ObjectIdentifier

  init(connection: TCPConnection, initialBytes: [UInt8], context: LoopContext) {
    self.connection = connection
    self.context = context
    self.key = ObjectIdentifier(connection)
    connection.delegate = self
    context.httpSessions[key] = self
    armIdleTimer()
    armRequestTimer()
    if !initialBytes.isEmpty {
      parser.append(initialBytes)
      process()
    }
  }

  private func armIdleTimer() {
    idleTimer?.cancel()
    // An HTTP connection that sends nothing for 30 s is closed (slowloris guard).
    idleTimer = context.loop.scheduleLocal(after: .seconds(30)) { [weak self] in
      self?.connection.close()
    }
  }

  func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer) {
    guard !done else { return }
    parser.append(bytes)
    armIdleTimer()
    if requestTimer == nil { armRequestTimer() }
    process()
  }

  private func process() {
    while !done {
      let request: HTTPRequest?
      do {
        request = try parser.next()
      } catch {
        respond(.error(error), keepAlive: false)
        return
      }
      guard let request else { return }
      requestTimer?.cancel()
      requestTimer = nil
      context.metrics.httpRequests.add(1, ordering: .relaxed)
      if request.head.isWebSocketUpgrade {
        upgrade(request.head)
        return
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

  private func respond(_ response: HTTPResponse, keepAlive: Bool) {
    var response = response
    if !keepAlive { response.headers.replaceOrAdd(name: "Connection", value: "close") }
    connection.write(response.encode())
    if !keepAlive || response.headers["Connection"]?.lowercased() == "close" {
      finish()
      connection.close()
    }
  }

  private func upgrade(_ head: HTTPRequestHead) {
    finish()
    let leftover = parser.takeRemainingBytes()
    context.core.webSocketHandoff(connection, head, leftover, context)
  }

  /// A request that has not fully arrived `--http-request-timeout` after its wait began is
  /// answered 408 and the connection closed.
  private func armRequestTimer() {
    requestTimer?.cancel()
    requestTimer = nil
    let timeout = context.configuration.limits.httpRequestTimeout
    guard timeout > .zero else { return }
    requestTimer = context.loop.scheduleLocal(after: timeout) { [weak self] in
      guard let self, !self.done else { return }
      self.context.metrics.limits.httpRequestTimeouts.add(1, ordering: .relaxed)
      self.respond(.text(408, "the request did not arrive in time\n"), keepAlive: false)
    }
  }

  private func finish() {
    done = true
    idleTimer?.cancel()
    requestTimer?.cancel()
  }

  func connectionDidReadEOF(_ connection: TCPConnection) {
    connection.close()
  }

  func connection(_ connection: TCPConnection, didCloseWith error: IOError?) {
    finish()
    context.httpSessions[key] = nil
    context.core.connectionClosed(connection)
  }
}
