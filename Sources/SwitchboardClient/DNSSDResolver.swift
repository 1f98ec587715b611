import SwitchboardDiscovery
import SwitchboardLog

/// The ``ChatServiceResolver`` on Switchboard's discovery: a browser for the service's type
/// (``Discovery/browser(backend:types:interfaceNames:log:onEvent:)``) opened for each
/// resolution and closed after it, so no answer cached from before a restart is reused.
/// The first resolved instance of that name wins.
public struct DNSSDResolver: ChatServiceResolver {
  /// Which DNS-SD implementation browses (default ``DiscoveryBackend/auto``).
  public var backend: DiscoveryBackend
  /// How long to wait for the instance to answer (default 5 s).
  public var timeout: Duration
  /// Only these interfaces; `nil` (the default): every multicast interface.
  public var interfaceNames: [String]?
  /// Where the browser logs (default: nowhere).
  public var logger: Log

  /// Creates a resolver; every parameter has the documented default.
  public init(
    backend: DiscoveryBackend = .auto, timeout: Duration = .seconds(5), interfaceNames: [String]? = nil,
    logger: Log = .disabled
  ) {
    self.backend = backend
    self.timeout = timeout
    self.interfaceNames = interfaceNames
    self.logger = logger
  }

  /// Browses for `service`'s type until the instance resolves or ``timeout`` passes.
  /// - Throws: ``ChatClientError/serviceNotFound`` after the timeout;
  ///   ``ChatClientError/connectFailed`` when the browser cannot start (no multicast socket,
  ///   or ``DiscoveryBackend/system`` without a daemon); ``ChatClientError/closed`` when the
  ///   task is cancelled.
  public func resolve(_ service: ChatService) async throws(ChatClientError) -> MDNSResolvedService {
    let (found, continuation) = AsyncStream.makeStream(
      of: MDNSResolvedService.self, bufferingPolicy: .bufferingNewest(1))
    let browser: any ServiceBrowser
    do {
      browser = try Discovery.browser(
        backend: backend, types: [service.type], interfaceNames: interfaceNames, log: logger
      ) { event in
        switch event {
        case .added(let s), .updated(let s): if service.matches(s) { continuation.yield(s) }
        case .removed: break
        }
      }
    } catch {
      throw .connectFailed("cannot browse for \(service): \(error.message)")
    }
    let timeout = self.timeout
    let first = await withTaskGroup(of: MDNSResolvedService?.self) { group in
      group.addTask {
        for await s in found { return s }
        return nil
      }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first
    }
    continuation.finish()
    browser.shutdown()
    if let first { return first }
    if Task.isCancelled { throw .closed("cancelled while resolving \(service)") }
    throw .serviceNotFound("no answer from \(service) within \(timeout)")
  }
}
