import SwitchboardDiscovery
import SwitchboardLog
import Synchronization

/// The ``ChatServiceResolver`` on Switchboard's discovery: a browser for the service's type
/// (``Discovery/browser(backend:types:interfaceNames:log:onEvent:)``) opened for each
/// resolution and closed after it, so no answer cached from before a restart is reused.
/// The first resolved instance of that name wins; when it came with IPv6 addresses only,
/// the resolver gives the instance's IPv4 address ``addressSettle`` to arrive too (a
/// responder's A and AAAA answers come separately, and a server bound to `0.0.0.0` refuses
/// IPv6).
public struct DNSSDResolver: ChatServiceResolver {
  /// Which DNS-SD implementation browses (default ``DiscoveryBackend/auto``).
  public var backend: DiscoveryBackend
  /// How long to wait for the instance to answer (default 5 s).
  public var timeout: Duration
  /// Only these interfaces; `nil` (the default): every multicast interface.
  public var interfaceNames: [String]?
  /// Where the browser logs (default: nowhere).
  public var logger: Log
  /// How long an instance resolved with IPv6 addresses only may take to add an IPv4 one.
  public static let addressSettle: Duration = .milliseconds(500)

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
    let latest = Mutex<MDNSResolvedService?>(nil)
    let browser: any ServiceBrowser
    do {
      browser = try Discovery.browser(
        backend: backend, types: [service.type], interfaceNames: interfaceNames, log: logger
      ) { event in
        switch event {
        case .added(let s), .updated(let s):
          guard service.matches(s) else { return }
          latest.withLock { $0 = s }
          continuation.yield(s)
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
    if let first, first.ipv4.isEmpty, !Task.isCancelled {
      try? await Task.sleep(for: Self.addressSettle)
    }
    continuation.finish()
    browser.shutdown()
    if first != nil, let resolved = latest.withLock({ $0 }) { return resolved }
    if Task.isCancelled { throw .closed("cancelled while resolving \(service)") }
    throw .serviceNotFound("no answer from \(service) within \(timeout)")
  }
}
