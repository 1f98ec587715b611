import SwitchboardAuth
import SwitchboardChat
import SwitchboardIO
import SwitchboardLog

/// The server's auth proxy (`serve --auth-proxy URL`): the outbound client, the answer cache
/// and the counters, shared by every loop (docs/API.md, "Auth proxy").
final class AuthProxy: Sendable {
  let configuration: AuthProxyConfiguration
  let client: AuthProxyClient
  let cache: AuthProxyCache
  let metrics: AuthProxyMetrics

  init(configuration: AuthProxyConfiguration, metrics: AuthProxyMetrics) {
    self.configuration = configuration
    self.client = AuthProxyClient(configuration: configuration)
    self.cache = AuthProxyCache(lifetime: configuration.cacheTime)
    self.metrics = metrics
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
    metrics.requests.add(1, ordering: .relaxed)
    let cache = self.cache
    client.ask(request.encoded()) { result in
      if case .success(let answer) = result { cache.store(answer, for: key, now: Deadline.now()) }
      loop.execute { done(result) }
    }
  }

  /// Counts a decision the session is about to carry out, and logs a refusal (info) or a
  /// failure (warning) with the connection's details.
  func record(_ decision: AuthProxyState.Decision, logger: Log, peer: SocketAddress?, member: MemberID, dialect: String) {
    switch decision {
    case .admit:
      metrics.allowed.add(1, ordering: .relaxed)
    case .deny(let reason):
      metrics.denied.add(1, ordering: .relaxed)
      logger.info("auth proxy refused", metadata: .connection(peer: peer, member: member, dialect: dialect, error: reason))
    case .fail(let failure):
      metrics.failures.add(1, ordering: .relaxed)
      logger.warning(
        "auth proxy failed", metadata: .connection(peer: peer, member: member, dialect: dialect, error: "\(failure)"))
    case .stale:
      break
    }
  }
}
