import SwitchboardDNS
import SwitchboardDiscovery
import Synchronization

/// What Network.framework reports while browsing and resolving, as plain values: the Apple
/// resolver (``NetworkServiceResolver``) only copies them out of `NWBrowser`, `NWConnection`
/// and `NWError`, and every decision about them is made here, where Linux compiles and tests
/// it.
enum BonjourInput {
  /// An `NWError`, case by case.
  enum Failure: Sendable, Hashable, CustomStringConvertible {
    /// `NWError.dns(DNSServiceErrorType)`: a `kDNSServiceErr_*` code.
    case dns(Int32)
    /// `NWError.posix(POSIXErrorCode)`: its raw value.
    case posix(Int32)
    /// `NWError.tls(OSStatus)`.
    case tls(Int32)
    /// Anything else, as Network.framework describes it.
    case other(String)

    /// Whether this is `kDNSServiceErr_PolicyDenied`: the system refused local network access.
    var isPolicyDenied: Bool { self == .dns(Discovery.policyDeniedCode) }

    var description: String {
      switch self {
      case .dns(let code): "DNS error \(code)"
      case .posix(let code): "POSIX error \(code)"
      case .tls(let status): "TLS error \(status)"
      case .other(let text): text
      }
    }
  }

  /// One `NWBrowser.Result` whose endpoint is `.service(name:type:domain:interface:)`, with
  /// the TXT record of its `.bonjour` metadata (`nil`: `.none`).
  struct Result: Sendable, Hashable {
    /// The instance name, unescaped (`SB Target`).
    var name: String
    /// The type as the browser gives it (`_switchboard._tcp` or `_switchboard._tcp.`).
    var type: String
    /// The domain as the browser gives it (`local.`).
    var domain: String
    /// `NWTXTRecord.dictionary`, or `nil` when the result carried no TXT record.
    var txt: [String: String]?
    /// The index of the interface it was found on (`NWInterface.index`); 0 when none was named.
    var interface: UInt32
  }

  /// The host of the `.hostPort` endpoint a resolving connection reached
  /// (`NWConnection.currentPath?.remoteEndpoint`).
  enum Host: Sendable, Hashable {
    /// `IPv4Address.rawValue`: 4 bytes.
    case ipv4([UInt8])
    /// `IPv6Address.rawValue` (16 bytes) and the index of `IPv6Address.interface`, its scope.
    case ipv6([UInt8], scope: UInt32?)
    /// A host name.
    case name(String)
  }
}

/// Finding one service instance with Network.framework, as a state machine: browse for the
/// type, pick the instance by name, resolve it to an address, map what came back to an
/// ``MDNSResolvedService`` — or the error the client reports. Inputs are
/// ``BonjourInput`` values; each returns the ``Step`` to take.
///
/// Local Network privacy: a denied (or not yet granted) permission shows as the browser
/// waiting with `kDNSServiceErr_PolicyDenied`, and moves on to ready when the user allows
/// access in the prompt. So a waiting browser is not the end: the denial is remembered, and
/// only if the deadline comes before the instance does is it the error
/// (``ChatClientError/localNetworkDenied`` instead of ``ChatClientError/serviceNotFound``). A
/// browser that *fails* with it ends at once.
struct BonjourResolution: Sendable {
  /// Where the resolution is.
  enum Phase: Sendable, Hashable {
    /// Browsing; nothing matched yet.
    case browsing
    /// The instance was found; its address is being resolved.
    case resolving(BonjourInput.Result)
    /// Done (the step that finished it was returned once).
    case finished
  }

  /// What the platform must do next.
  enum Step: Sendable, Equatable {
    /// Nothing: keep waiting.
    case wait
    /// Resolve this result's address (a short connection to the service endpoint).
    case resolve(BonjourInput.Result)
    /// Stop everything and answer this.
    case finish(Result<MDNSResolvedService, ChatClientError>)
  }

  /// The service looked for.
  let service: ChatService
  /// Where it is.
  private(set) var phase = Phase.browsing
  /// The last Local Network refusal seen while waiting, cleared when the browser becomes ready.
  private(set) var denial: BonjourInput.Failure?

  /// A resolution of `service`, browsing.
  init(service: ChatService) { self.service = service }

  /// The browser is browsing (the permission, if it was pending, is granted).
  mutating func browserReady() -> Step {
    guard phase == .browsing else { return .wait }
    denial = nil
    return .wait
  }

  /// The browser waits (`NWBrowser.State.waiting`): remembered when it is the Local Network
  /// refusal; the browser may still become ready.
  mutating func browserWaiting(_ failure: BonjourInput.Failure) -> Step {
    guard phase != .finished else { return .wait }
    if failure.isPolicyDenied { denial = failure }
    return .wait
  }

  /// The browser failed (`NWBrowser.State.failed`): the end, whatever phase.
  mutating func browserFailed(_ failure: BonjourInput.Failure) -> Step {
    finish(.failure(error(failure, call: "NWBrowser")))
  }

  /// The browser's current results (`browseResultsChangedHandler`'s first argument). While
  /// browsing, the first that is this instance (instance and type ignoring ASCII case, domain
  /// `local`) is resolved; one that carries a TXT record is preferred, then the lowest
  /// interface index, so the choice does not depend on the set's order.
  mutating func results(_ results: some Sequence<BonjourInput.Result>) -> Step {
    guard phase == .browsing else { return .wait }
    let matching = results.filter(matches).sorted {
      ($0.txt == nil ? 1 : 0, $0.interface, $0.type) < ($1.txt == nil ? 1 : 0, $1.interface, $1.type)
    }
    guard let chosen = matching.first else { return .wait }
    phase = .resolving(chosen)
    return .resolve(chosen)
  }

  /// The resolving connection waits (`NWConnection.State.waiting`); `localNetworkDenied` is
  /// whether its path says so (`NWPath.unsatisfiedReason == .localNetworkDenied`).
  mutating func resolverWaiting(_ failure: BonjourInput.Failure, localNetworkDenied: Bool) -> Step {
    guard case .resolving = phase else { return .wait }
    if failure.isPolicyDenied || localNetworkDenied { denial = .dns(Discovery.policyDeniedCode) }
    return .wait
  }

  /// The resolving connection failed.
  mutating func resolverFailed(_ failure: BonjourInput.Failure) -> Step {
    guard case .resolving = phase else { return .wait }
    return finish(.failure(error(failure, call: "NWConnection to \(service)")))
  }

  /// The resolving connection reached `host` on `port`: the answer.
  mutating func resolved(host: BonjourInput.Host, port: UInt16) -> Step {
    guard case .resolving(let found) = phase else { return .wait }
    return finish(.success(Self.resolvedService(found, host: host, port: port, type: service.type)))
  }

  /// The deadline passed: the remembered Local Network refusal if there is one, else
  /// ``ChatClientError/serviceNotFound``.
  mutating func deadline(after timeout: Duration) -> Step {
    guard phase != .finished else { return .wait }
    if let denial { return finish(.failure(error(denial, call: "NWBrowser"))) }
    return finish(.failure(.serviceNotFound("no answer from \(service) within \(timeout)")))
  }

  /// The caller gave up (its task was cancelled).
  mutating func cancel() -> Step {
    guard phase != .finished else { return .wait }
    return finish(.failure(.closed("cancelled while resolving \(service)")))
  }

  private mutating func finish(_ result: Result<MDNSResolvedService, ChatClientError>) -> Step {
    guard phase != .finished else { return .wait }
    phase = .finished
    return .finish(result)
  }

  /// Whether `result` is this service's instance.
  func matches(_ result: BonjourInput.Result) -> Bool {
    let type = result.type.hasSuffix(".") ? String(result.type.dropLast()) : result.type
    let probe = MDNSResolvedService(
      instance: result.name, type: type, domain: result.domain, host: "", port: 0, txt: .empty, ipv4: [],
      ipv6: [], interface: result.interface)
    return service.matches(probe)
  }

  /// The client's error for `failure` reported by `call`: DNS codes through the discovery
  /// mapping (so `kDNSServiceErr_PolicyDenied` is ``ChatClientError/localNetworkDenied``),
  /// everything else ``ChatClientError/connectFailed``.
  func error(_ failure: BonjourInput.Failure, call: String) -> ChatClientError {
    switch failure {
    case .dns(let code):
      .discovery(Discovery.dnsServiceError(code, call: call), browsing: service)
    case .posix, .tls, .other:
      .connectFailed("\(call) for \(service): \(failure)")
    }
  }

  /// `found`, reached at `host`:`port`, as the client's ``MDNSResolvedService``: the TXT
  /// dictionary as entries sorted by key (a dictionary has no order; keys that are not valid
  /// TXT keys are left out), an IPv4-mapped IPv6 address as the IPv4 address it is, a scoped
  /// IPv6 address's interface as the service's, and the host name (without its trailing dot)
  /// when the path named no address.
  static func resolvedService(_ found: BonjourInput.Result, host: BonjourInput.Host, port: UInt16, type: String)
    -> MDNSResolvedService
  {
    var entries: [DNSTXT.Entry] = []
    for (key, value) in (found.txt ?? [:]).sorted(by: { $0.key < $1.key }) {
      if let entry = try? DNSTXT.Entry(key: key, value: value) { entries.append(entry) }
    }
    var ipv4: [DNSIPv4Address] = []
    var ipv6: [DNSIPv6Address] = []
    var interface = found.interface
    var hostName = ""
    switch host {
    case .ipv4(let bytes):
      if let address = DNSIPv4Address(bytes: bytes) { ipv4 = [address] }
    case .ipv6(let bytes, let scope):
      if bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
        ipv4 = DNSIPv4Address(bytes: bytes[12...]).map { [$0] } ?? []
      } else if let address = DNSIPv6Address(bytes: bytes) {
        ipv6 = [address]
        if let scope, scope != 0 { interface = scope }
      }
    case .name(let name):
      hostName = name.hasSuffix(".") ? String(name.dropLast()) : name
    }
    if hostName.isEmpty { hostName = (ipv4.map(\.description) + ipv6.map(\.description)).first ?? "" }
    return MDNSResolvedService(
      instance: found.name, type: type, domain: "local", host: hostName, port: port, txt: DNSTXT(entries),
      ipv4: ipv4, ipv6: ipv6, interface: interface)
  }
}

/// The calls the platform makes for a ``BonjourResolveRun``: start browsing, start resolving;
/// each returns how to stop what it started. Network.framework's is
/// ``NetworkServiceResolver``'s; tests supply their own.
protocol BonjourPlatform: Sendable {
  /// Starts browsing for `type` in `domain`, reporting to `run`.
  func browse(type: String, domain: String, reporting run: BonjourResolveRun) -> @Sendable () -> Void
  /// Starts resolving `result`'s address, reporting to `run`.
  func resolve(_ result: BonjourInput.Result, reporting run: BonjourResolveRun) -> @Sendable () -> Void
}

/// One resolution, driven: a ``BonjourResolution`` behind a lock, fed by the platform's
/// callbacks (any thread), a deadline, and the caller's cancellation; it starts and stops
/// what the steps say, and answers the caller once.
final class BonjourResolveRun: Sendable {
  private struct State {
    var machine: BonjourResolution
    var platform: (any BonjourPlatform)?
    var stops: [@Sendable () -> Void] = []
    var waiter: CheckedContinuation<Result<MDNSResolvedService, ChatClientError>, Never>?
    var outcome: Result<MDNSResolvedService, ChatClientError>?
  }

  private let state: Mutex<State>
  private let timeout: Duration

  /// A run for `service` that gives up after `timeout`.
  init(service: ChatService, timeout: Duration) {
    state = Mutex(State(machine: BonjourResolution(service: service)))
    self.timeout = timeout
  }

  /// Browses and resolves on `platform` until an answer, the deadline or cancellation.
  func run(on platform: some BonjourPlatform) async throws(ChatClientError) -> MDNSResolvedService {
    let timeout = self.timeout
    let deadline = Task { [weak self] in
      try? await Task.sleep(for: timeout)
      if !Task.isCancelled { self?.apply { $0.deadline(after: timeout) } }
    }
    defer { deadline.cancel() }
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { waiter in
        let service = state.withLock { s -> ChatService? in
          if let outcome = s.outcome {
            waiter.resume(returning: outcome)
            return nil
          }
          s.waiter = waiter
          s.platform = platform
          return s.machine.service
        }
        guard let service else { return }
        let stop = platform.browse(type: service.type, domain: service.domain + ".", reporting: self)
        keep(stop)
      }
    } onCancel: {
      apply { $0.cancel() }
    }
    return try result.get()
  }

  // MARK: What the platform reports

  /// `NWBrowser.State.ready`.
  func browserReady() { apply { $0.browserReady() } }
  /// `NWBrowser.State.waiting`.
  func browserWaiting(_ failure: BonjourInput.Failure) { apply { $0.browserWaiting(failure) } }
  /// `NWBrowser.State.failed`.
  func browserFailed(_ failure: BonjourInput.Failure) { apply { $0.browserFailed(failure) } }
  /// The browser's current results.
  func results(_ results: [BonjourInput.Result]) { apply { $0.results(results) } }
  /// The resolving connection's `.waiting`.
  func resolverWaiting(_ failure: BonjourInput.Failure, localNetworkDenied: Bool) {
    apply { $0.resolverWaiting(failure, localNetworkDenied: localNetworkDenied) }
  }
  /// The resolving connection's `.failed`.
  func resolverFailed(_ failure: BonjourInput.Failure) { apply { $0.resolverFailed(failure) } }
  /// The resolving connection's `.ready`, with the address its path reached.
  func resolved(host: BonjourInput.Host, port: UInt16) { apply { $0.resolved(host: host, port: port) } }

  // MARK: Steps

  /// Runs one input through the machine and does what it returns, outside the lock.
  private func apply(_ input: (inout BonjourResolution) -> BonjourResolution.Step) {
    let (step, platform) = state.withLock { s in (input(&s.machine), s.platform) }
    switch step {
    case .wait:
      break
    case .resolve(let result):
      guard let platform else { return }
      keep(platform.resolve(result, reporting: self))
    case .finish(let outcome):
      let (waiter, stops) = state.withLock { s in
        s.outcome = outcome
        defer { s.waiter = nil; s.stops = [] }
        return (s.waiter, s.stops)
      }
      for stop in stops { stop() }
      waiter?.resume(returning: outcome)
    }
  }

  /// Holds `stop` until the run finishes, or calls it now when it already has.
  private func keep(_ stop: @escaping @Sendable () -> Void) {
    let finished = state.withLock { s -> Bool in
      if s.outcome != nil { return true }
      s.stops.append(stop)
      return false
    }
    if finished { stop() }
  }
}
