import SwitchboardAuth
import SwitchboardChat
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardLog

/// The server's auth proxy (`serve --auth-proxy URL`): the outbound HTTP client it asks
/// through, the answer cache and the counters, shared by every loop (docs/API.md, "Auth
/// proxy").
///
/// The questions go out on an ``OutboundHTTPClient`` with a loop of its own, so no chat loop
/// ever waits on the backend; at most ``AuthProxyConfiguration/maxInFlight`` are out at once
/// (more fail at once: fail closed), and an answer is read up to
/// ``AuthProxyAnswer/maxBytes``.
final class AuthProxy: Sendable {
  let configuration: AuthProxyConfiguration
  let cache: AuthProxyCache
  let metrics: AuthProxyMetrics
  /// `nil` when its loop could not start: every question then fails (closed).
  private let client: OutboundHTTPClient?

  init(configuration: AuthProxyConfiguration, metrics: AuthProxyMetrics, logger: Log) {
    self.configuration = configuration
    self.cache = AuthProxyCache(lifetime: configuration.cacheTime)
    self.metrics = metrics
    do {
      client = try OutboundHTTPClient(
        configuration: OutboundHTTPConfiguration(
          timeout: configuration.timeout, maxAnswerBytes: AuthProxyAnswer.maxBytes,
          maxInFlight: configuration.maxInFlight))
    } catch {
      logger.error(
        "auth proxy client cannot start: every connection will be refused", metadata: ["error": "\(error)"])
      client = nil
    }
  }

  /// Asks about `request` (the cache first) and calls `done` on `loop` with the answer or
  /// why there is none. Good answers are cached; failures never are.
  func ask(
    _ request: AuthProxyRequest, on loop: EventLoop,
    _ done: @escaping @Sendable (Result<AuthProxyAnswer, AuthProxyFailure>) -> Void
  ) {
    let key = request.cacheKey
    if let answer = cache.answer(for: key, now: Deadline.now()) {
      metrics.cacheHits.add(1, ordering: .relaxed)
      loop.execute { done(.success(answer)) }
      return
    }
    guard let client else {
      loop.execute { done(.failure(.unavailable)) }
      return
    }
    metrics.requests.add(1, ordering: .relaxed)
    let cache = self.cache
    let headers: HTTPHeaders = [
      "Content-Type": "application/json", "Accept": "application/json",
      "User-Agent": "switchboard-auth-proxy",
    ]
    client.post(configuration.url, headers: headers, body: Array(request.encoded().utf8)) { response in
      let result: Result<AuthProxyAnswer, AuthProxyFailure>
      switch response {
      case .success(let answer):
        do throws(AuthProxyAnswerError) {
          let decoded = try AuthProxyAnswer.decode(answer.body)
          cache.store(decoded, for: key, now: Deadline.now())
          result = .success(decoded)
        } catch {
          result = .failure(.badAnswer(error))
        }
      case .failure(let error):
        result = .failure(.request(error))
      }
      loop.execute { done(result) }
    }
  }

  /// Stops the outbound client (its loop and connections); questions still out fail.
  func shutdown() { client?.shutdown() }

  /// Counts a decision the session is about to carry out, and logs a refusal (info) or a
  /// failure (warning) with the connection's details.
  func record(
    _ decision: AuthProxyState.Decision, logger: Log, peer: SocketAddress?, member: MemberID, dialect: String
  ) {
    switch decision {
    case .admit, .join:
      metrics.allowed.add(1, ordering: .relaxed)
    case .joinRefused(let reason, nil, _):
      metrics.denied.add(1, ordering: .relaxed)
      logger.info(
        "auth proxy refused a join",
        metadata: .connection(peer: peer, member: member, dialect: dialect, error: reason))
    case .joinRefused(_, let failure?, _):
      metrics.failures.add(1, ordering: .relaxed)
      logger.warning(
        "auth proxy failed",
        metadata: .connection(peer: peer, member: member, dialect: dialect, error: "\(failure)"))
    case .deny(let reason):
      metrics.denied.add(1, ordering: .relaxed)
      logger.info(
        "auth proxy refused",
        metadata: .connection(peer: peer, member: member, dialect: dialect, error: reason))
    case .fail(let failure):
      metrics.failures.add(1, ordering: .relaxed)
      logger.warning(
        "auth proxy failed",
        metadata: .connection(peer: peer, member: member, dialect: dialect, error: "\(failure)"))
    case .stale:
      break
    }
  }
}

/// A session that asks the auth proxy (line and WebSocket): the answer, or the timeout, is
/// handed to it on its loop.
protocol AuthProxyAsking: AnyObject {
  func proxyAnswered(_ result: Result<AuthProxyAnswer, AuthProxyFailure>)
}

extension LoopContext {
  /// Sends `member`'s first question (`state`: `unasked → pending`), holding `held`.
  func askAuthProxy(
    _ request: AuthProxyRequest, target: AuthProxyTarget, held: [AuthProxyHeld], state: inout AuthProxyState,
    for member: MemberID
  ) {
    guard let proxy = core.authProxy else { return }
    let timer = authProxyTimer(for: member, proxy)
    guard state.ask(request, target: target, held: held, timer: timer) else {
      timer.cancel()
      return
    }
    send(request, for: member, via: proxy)
  }

  /// Asks about an admitted `member` joining `target` when its admission gave no `rooms`
  /// (``AuthProxyState/askToJoin(_:from:timer:)``): `true` when the question went out (the
  /// join happens once it is allowed), `false` to join as usual.
  func askAuthProxy(join target: AuthProxyTarget, state: inout AuthProxyState, for member: MemberID) -> Bool {
    guard let proxy = core.authProxy,
      let request = state.askToJoin(
        target, from: hub.member(member)?.room, timer: { authProxyTimer(for: member, proxy) })
    else { return false }
    send(request, for: member, via: proxy)
    return true
  }

  /// The timer that ends `member`'s wait at `--auth-proxy-timeout`: no answer by then refuses.
  private func authProxyTimer(for member: MemberID, _ proxy: AuthProxy) -> Scheduled {
    loop.scheduleLocal(after: proxy.configuration.timeout) { [self] in
      (sessions[member] as? AuthProxyAsking)?.proxyAnswered(.failure(.timedOut))
    }
  }

  /// Sends `request` for `member`; the answer reaches the session on this loop if it is still
  /// open (a closed one has left the loop's table: its late answer is dropped).
  private func send(_ request: AuthProxyRequest, for member: MemberID, via proxy: AuthProxy) {
    let bound = LoopBound(self, on: loop)
    proxy.ask(request, on: loop) { result in
      (bound.value.sessions[member] as? AuthProxyAsking)?.proxyAnswered(result)
    }
  }
}
