import SwitchboardHTTP
import SwitchboardIO

/// The server API's side of an HTTP session: a request under `/api/` is served by
/// ``ServerAPI``; one that waits for the room broker puts the session in
/// ``Phase/answering(until:keepAlive:buffered:)`` until its answer comes back on this loop
/// (nothing blocks the loop), or answers 504 when ``ServerAPIConfiguration/timeout`` runs
/// out first.
extension HTTPSession {
  /// The most bytes buffered while an answer is awaited: one more request of the largest
  /// size the parser accepts. A peer that sends more before its answer is disconnected.
  static var maxBufferedWhileAnswering: Int { HTTPLimits.defaultMaxBodySize + HTTPLimits.defaultMaxHeaderBytes }

  /// Serves `request` (an `/api/` path), now or later; `authorized`: the admin console let
  /// it in (no API key is asked for).
  func serveAPI(_ request: HTTPRequest, authorized: Bool = false) {
    let keepAlive = request.head.keepAlive
    let isHead = request.head.method == "HEAD"
    let loop = context.loop
    let outcome = ServerAPI(context: context).handle(request, authorized: authorized) { [weak self] response in
      guard let self else { return }
      // Always from a task of its own: an answer may come before `handle` returns (a
      // history the room's ring holds), when the session does not wait for it yet.
      let session = LoopBound(self, on: loop)
      let answer = LoopBound(response, on: loop)
      loop.execute { session.value.apiAnswered(answer.value, keepAlive: keepAlive, isHead: isHead) }
    }
    switch outcome {
    case .now(var response):
      context.metrics.api.answered(status: response.status)
      if isHead { response.body = [] }
      respond(response, keepAlive: keepAlive)
    case .later:
      guard case .serving = phase else { return }
      let until = Deadline.now().adding(context.configuration.api.timeout)
      phase = .answering(until: until, keepAlive: keepAlive, buffered: 0)
    }
  }

  /// The answer came: sent unless the session gave up meanwhile; then the requests that
  /// arrived in the meantime are read.
  private func apiAnswered(_ response: HTTPResponse, keepAlive: Bool, isHead: Bool) {
    guard case .answering = phase else { return }
    phase = .serving(idle: Deadline.now().adding(Self.idleTimeout), request: nil)
    context.metrics.api.answered(status: response.status)
    var response = response
    if isHead { response.body = [] }
    respond(response, keepAlive: keepAlive)
    process()
  }

  /// Bytes that arrived while an answer is awaited: kept for later, within a bound.
  func bufferWhileAnswering(_ bytes: UnsafeRawBufferPointer) {
    guard case .answering(let until, let keepAlive, let buffered) = phase else { return }
    guard buffered + bytes.count <= Self.maxBufferedWhileAnswering else {
      phase = .finished
      connection.close()
      return
    }
    parser.append(bytes)
    phase = .answering(until: until, keepAlive: keepAlive, buffered: buffered + bytes.count)
  }

  /// The broker did not answer in time: 504, and the connection closes (a late answer
  /// would otherwise arrive after it).
  func apiTimedOut() {
    phase = .serving(idle: Deadline.now().adding(Self.idleTimeout), request: nil)
    context.metrics.api.answered(status: ServerAPIError.timeout.status)
    respond(ServerAPIError.timeout.response, keepAlive: false)
  }
}
