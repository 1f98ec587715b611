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

  /// Opens the browser: ``Discovery/browser(backend:types:interfaceNames:log:onFailure:onEvent:)``
  /// unless a test put a stand-in here.
  typealias BrowserFactory =
    @Sendable (
      _ types: [String], _ onFailure: @escaping @Sendable (DiscoveryError) -> Void,
      _ onEvent: @escaping @Sendable (MDNSBrowserEvent) -> Void
    ) throws(DiscoveryError) -> any ServiceBrowser
  var browserFactory: BrowserFactory?

  /// What the browser said first.
  private enum Outcome: Sendable {
    case found(MDNSResolvedService)
    case failed(DiscoveryError)
  }

  /// Browses for `service`'s type until the instance resolves or ``timeout`` passes.
  /// - Throws: ``ChatClientError/serviceNotFound`` after the timeout;
  ///   ``ChatClientError/localNetworkDenied`` when the system refuses this app local network
  ///   access (Local Network privacy); ``ChatClientError/connectFailed`` when the browser
  ///   cannot start or stops (no multicast socket, or ``DiscoveryBackend/system`` without a
  ///   daemon); ``ChatClientError/closed`` when the task is cancelled.
  public func resolve(_ service: ChatService) async throws(ChatClientError) -> MDNSResolvedService {
    let (outcomes, continuation) = AsyncStream.makeStream(of: Outcome.self, bufferingPolicy: .bufferingNewest(1))
    let latest = Mutex<MDNSResolvedService?>(nil)
    let onFailure: @Sendable (DiscoveryError) -> Void = { continuation.yield(.failed($0)) }
    let onEvent: @Sendable (MDNSBrowserEvent) -> Void = { event in
      switch event {
      case .added(let s), .updated(let s):
        guard service.matches(s) else { return }
        latest.withLock { $0 = s }
        continuation.yield(.found(s))
      case .removed: break
      }
    }
    let browser: any ServiceBrowser
    do {
      if let browserFactory {
        browser = try browserFactory([service.type], onFailure, onEvent)
      } else {
        browser = try Discovery.browser(
          backend: backend, types: [service.type], interfaceNames: interfaceNames, log: logger,
          onFailure: onFailure, onEvent: onEvent)
      }
    } catch {
      throw .discovery(error, browsing: service)
    }
    let timeout = self.timeout
    let first = await withTaskGroup(of: Outcome?.self) { group in
      group.addTask {
        for await outcome in outcomes { return outcome }
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
    if case .found(let found) = first, found.ipv4.isEmpty, !Task.isCancelled {
      try? await Task.sleep(for: Self.addressSettle)
    }
    continuation.finish()
    browser.shutdown()
    switch first {
    case .found:
      if let resolved = latest.withLock({ $0 }) { return resolved }
    case .failed(let error):
      // An answer that came just before the browse stopped is still the answer.
      if let resolved = latest.withLock({ $0 }) { return resolved }
      throw .discovery(error, browsing: service)
    case nil:
      break
    }
    if Task.isCancelled { throw .closed("cancelled while resolving \(service)") }
    throw .serviceNotFound("no answer from \(service) within \(timeout)")
  }
}
