#if canImport(Network)
  import Dispatch
  import Foundation
  @preconcurrency import Network  // why: see NetworkChatTransport.swift
  import SwitchboardDiscovery

  /// The ``ChatServiceResolver`` on Apple platforms (the default of
  /// ``ChatClient/Configuration/resolver`` there): Network.framework's `NWBrowser` finds the
  /// instance and its TXT record, and a short `NWConnection` to the service endpoint resolves
  /// its address. mDNSResponder does the multicast, so no multicast entitlement is needed;
  /// the app needs `NSLocalNetworkUsageDescription` and the service type in
  /// `NSBonjourServices` (docs/APPLE.md). Everything but the calls to Network.framework is in
  /// ``BonjourResolution``, which the Linux tests run.
  public struct NetworkServiceResolver: ChatServiceResolver {
    /// How long to wait for the instance to answer (default 5 s).
    public var timeout: Duration

    /// Creates a resolver that waits up to `timeout`.
    public init(timeout: Duration = .seconds(5)) { self.timeout = timeout }

    /// Browses for `service`'s type until the instance resolves or ``timeout`` passes.
    /// - Throws: ``ChatClientError/serviceNotFound`` after the timeout;
    ///   ``ChatClientError/localNetworkDenied`` when the user denied Local Network access (or
    ///   has not answered the prompt by the timeout); ``ChatClientError/connectFailed`` when
    ///   browsing or resolving fails otherwise; ``ChatClientError/closed`` when the task is
    ///   cancelled.
    public func resolve(_ service: ChatService) async throws(ChatClientError) -> MDNSResolvedService {
      try await BonjourResolveRun(service: service, timeout: timeout).run(on: NetworkBonjourPlatform())
    }
  }

  /// Network.framework's calls for a ``BonjourResolveRun``, and the copying of its values into
  /// ``BonjourInput``.
  struct NetworkBonjourPlatform: BonjourPlatform {
    private let queue = DispatchQueue(label: "switchboard.bonjour-resolver")

    func browse(type: String, domain: String, reporting run: BonjourResolveRun) -> @Sendable () -> Void {
      let browser = NWBrowser(for: .bonjourWithTXTRecord(type: type, domain: domain), using: NWParameters())
      browser.stateUpdateHandler = { state in
        switch state {
        case .ready: run.browserReady()
        case .waiting(let error): run.browserWaiting(Self.failure(error))
        case .failed(let error): run.browserFailed(Self.failure(error))
        case .setup, .cancelled: break
        @unknown default: break
        }
      }
      browser.browseResultsChangedHandler = { results, _ in
        run.results(results.compactMap(Self.result))
      }
      browser.start(queue: queue)
      return { browser.cancel() }
    }

    func resolve(_ result: BonjourInput.Result, reporting run: BonjourResolveRun) -> @Sendable () -> Void {
      let endpoint = NWEndpoint.service(name: result.name, type: result.type, domain: result.domain, interface: nil)
      // UDP: the connection is ready once the service's address is resolved, and sends
      // nothing, so the server never sees this probe (a TCP one would connect to it).
      let connection = NWConnection(to: endpoint, using: .udp)
      connection.stateUpdateHandler = { [weak connection] state in
        switch state {
        case .ready:
          if case .hostPort(let host, let port)? = connection?.currentPath?.remoteEndpoint {
            run.resolved(host: Self.host(host), port: port.rawValue)
          } else {
            run.resolverFailed(.other("the connection to the service has no address"))
          }
        case .waiting(let error):
          let denied = connection?.currentPath?.unsatisfiedReason == .localNetworkDenied
          run.resolverWaiting(Self.failure(error), localNetworkDenied: denied)
        case .failed(let error): run.resolverFailed(Self.failure(error))
        case .setup, .preparing, .cancelled: break
        @unknown default: break
        }
      }
      connection.start(queue: queue)
      return { connection.cancel() }
    }

    static func failure(_ error: NWError) -> BonjourInput.Failure {
      switch error {
      case .dns(let code): .dns(Int32(code))
      case .posix(let code): .posix(code.rawValue)
      case .tls(let status): .tls(Int32(status))
      @unknown default: .other("\(error)")
      }
    }

    static func result(_ result: NWBrowser.Result) -> BonjourInput.Result? {
      guard case .service(let name, let type, let domain, let interface) = result.endpoint else { return nil }
      var txt: [String: String]?
      if case .bonjour(let record) = result.metadata { txt = record.dictionary }
      return BonjourInput.Result(
        name: name, type: type, domain: domain, txt: txt, interface: UInt32(interface?.index ?? 0))
    }

    static func host(_ host: NWEndpoint.Host) -> BonjourInput.Host {
      switch host {
      case .ipv4(let address): .ipv4(Array(address.rawValue))
      case .ipv6(let address): .ipv6(Array(address.rawValue), scope: address.interface.map { UInt32($0.index) })
      case .name(let name, _): .name(name)
      @unknown default: .name("\(host)")
      }
    }
  }
#endif
