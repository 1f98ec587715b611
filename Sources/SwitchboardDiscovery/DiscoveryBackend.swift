import SwitchboardIO
import SwitchboardLog

/// Which DNS-SD implementation publishes and finds services.
///
/// - ``builtin``: Switchboard's own mDNS responder and browser (``MDNSAdvertiser``,
///   ``MDNSBrowserSession``) on UDP 5353, shared with any other responder on the host. Needs
///   no daemon.
/// - ``system``: the system's DNS-SD API (`dns_sd.h`): Apple's mDNSResponder on Darwin,
///   avahi-daemon through its compatibility library on Linux.
/// - ``auto``: the system API when its daemon answers, else the built-in one.
///
/// On macOS and iOS the built-in responder does not run (port 5353 is mDNSResponder's, and the
/// packet-info calls it reads interfaces with are Linux's): ``auto`` is the system's
/// mDNSResponder there, and ``builtin`` is refused with an error that says so.
public enum DiscoveryBackend: String, Sendable, Hashable, CaseIterable {
  /// The system's API when its daemon answers, else the built-in responder.
  case auto
  /// The built-in responder and browser.
  case builtin
  /// The system's DNS-SD API; an error when its daemon does not answer.
  case system
}

/// Publishes services: the built-in responder (``MDNSAdvertiser``) or the system's DNS-SD
/// daemon. Events (registered, renamed, failed, warnings) go to the handler given when it
/// was made.
public protocol ServiceAdvertiser: AnyObject, Sendable {
  /// The backend this advertiser runs on (never ``DiscoveryBackend/auto``).
  var backend: DiscoveryBackend { get }
  /// The host name services point at (after any rename).
  var hostName: String { get }
  /// Publishes a service; ``MDNSEvent/registered(_:name:)`` follows once its name is won.
  func register(_ service: MDNSService) throws(DiscoveryError) -> MDNSServiceID
  /// Withdraws a service with goodbyes.
  func unregister(_ id: MDNSServiceID)
  /// Withdraws everything with goodbyes and releases the sockets or the daemon connection.
  /// Safe to call more than once.
  func shutdown()
}

/// Finds services: the built-in browser (``MDNSBrowserSession``) or the system's DNS-SD
/// daemon. Events go to the handler given when it was made.
public protocol ServiceBrowser: AnyObject, Sendable {
  /// The backend this browser runs on (never ``DiscoveryBackend/auto``).
  var backend: DiscoveryBackend { get }
  /// The interfaces browsed (index and name), for printing.
  var interfaces: [MDNSInterface] { get }
  /// Stops browsing. Safe to call more than once.
  func shutdown()
}

extension MDNSAdvertiser: ServiceAdvertiser {
  /// Always ``DiscoveryBackend/builtin``.
  public var backend: DiscoveryBackend { .builtin }
}

extension MDNSBrowserSession: ServiceBrowser {
  /// Always ``DiscoveryBackend/builtin``.
  public var backend: DiscoveryBackend { .builtin }
}

/// Makes advertisers and browsers on the backend asked for.
///
/// ```swift
/// let advertiser = try Discovery.advertiser(backend: .auto, configuration: .init()) { print($0) }
/// let browser = try Discovery.browser(backend: .auto, types: ["_switchboard._tcp"]) { print($0) }
/// ```
///
/// The system backend binds the DNS-SD library at run time (avahi's `libdns_sd.so.1` on
/// Linux, libSystem on Darwin), so it is there exactly when the library is installed and its
/// daemon answers; docs/DISCOVERY.md ("The two backends") says more.
public enum Discovery {
  /// Whether the system's DNS-SD daemon answers here (what ``DiscoveryBackend/auto`` asks):
  /// the library loads and a browse started through it is accepted. A yes is remembered for
  /// the life of the process; a no for a second, after which the next ask (the next browse or
  /// advertiser) probes again.
  public static var systemDaemonAnswers: Bool {
    if case .success = SystemDNSSD.daemon { true } else { false }
  }

  /// Why the system backend cannot be used here, or `nil` when it can
  /// (``DiscoveryError/localNetworkDenied`` when the system refused this program local network
  /// access).
  public static var systemUnavailableReason: DiscoveryError? {
    if case .failure(let error) = SystemDNSSD.daemon { error } else { nil }
  }

  /// The backend `backend` stands for here: ``DiscoveryBackend/auto`` becomes
  /// ``DiscoveryBackend/system`` when ``systemDaemonAnswers`` or where the built-in responder
  /// does not run (macOS, iOS), else ``DiscoveryBackend/builtin``.
  public static func resolve(_ backend: DiscoveryBackend) -> DiscoveryBackend {
    switch backend {
    case .auto: systemDaemonAnswers || !builtinRunsHere ? .system : .builtin
    case .builtin, .system: backend
    }
  }

  /// Whether the built-in responder and browser run on this platform: on Linux. On Darwin
  /// UDP 5353 belongs to mDNSResponder and the receiving interface of a datagram is read with
  /// Linux's packet-info calls, so the system backend does the work there.
  public static var builtinRunsHere: Bool { BuildPlatform.isLinux }

  /// What `backend` becomes on a platform, or why it cannot run there: `builtinRuns` says
  /// whether the built-in responder runs (``builtinRunsHere``), `systemUnavailable` why the
  /// system's daemon does not answer (`nil`: it does). ``DiscoveryBackend/system`` is kept even
  /// when the daemon does not answer: opening it then throws that error.
  /// - Returns: ``DiscoveryBackend/system`` or ``DiscoveryBackend/builtin``; or
  ///   ``DiscoveryError/unsupported`` naming the platform when the built-in responder is asked
  ///   for where it does not run, and `systemUnavailable`'s kind
  ///   (``DiscoveryError/systemUnavailable``, or ``DiscoveryError/localNetworkDenied``) when
  ///   `auto` finds neither the daemon nor a built-in responder that runs.
  package static func decide(
    _ backend: DiscoveryBackend, builtinRuns: Bool, systemUnavailable: DiscoveryError?, platform: String
  ) -> Result<DiscoveryBackend, DiscoveryError> {
    switch backend {
    case .system:
      return .success(.system)
    case .builtin:
      return builtinRuns ? .success(.builtin) : .failure(builtinRefusal(platform: platform))
    case .auto:
      guard let systemUnavailable else { return .success(.system) }
      if builtinRuns { return .success(.builtin) }
      // The kind stays: a denied permission must reach the app as that, not as "unavailable".
      return .failure(
        systemUnavailable.with(
          "\(systemUnavailable.message), and the built-in mDNS responder does not run on \(platform)"))
    }
  }

  /// The error for the built-in responder where it does not run.
  static func builtinRefusal(platform: String) -> DiscoveryError {
    DiscoveryError.unsupported.with(
      "the built-in mDNS responder does not run on \(platform) (UDP 5353 belongs to the system's "
        + "mDNSResponder): use the system backend (--mdns system, or auto, the default)")
  }

  /// An advertiser on `backend`.
  /// - Throws: ``DiscoveryError/systemUnavailable`` for ``DiscoveryBackend/system`` when
  ///   the library is missing or its daemon does not answer; ``DiscoveryError/unsupported`` for
  ///   ``DiscoveryBackend/builtin`` where the built-in responder does not run; what
  ///   ``MDNSAdvertiser/init(configuration:loop:onEvent:)`` throws for the built-in one.
  public static func advertiser(
    backend: DiscoveryBackend, configuration: MDNSAdvertiser.Configuration,
    onEvent: @escaping @Sendable (MDNSEvent) -> Void = { _ in }
  ) throws(DiscoveryError) -> any ServiceAdvertiser {
    switch try chosen(backend, log: configuration.log) {
    case .auto, .builtin:
      return try MDNSAdvertiser(configuration: configuration, onEvent: onEvent)
    case .system:
      return try SystemAdvertiser(configuration: configuration, onEvent: onEvent)
    }
  }

  /// A browser for `types` (such as `_switchboard._tcp`) on `backend`.
  /// - Parameters:
  ///   - onFailure: Called when a browse stops after it started (the system daemon went away,
  ///     or refused with ``DiscoveryError/localNetworkDenied``); that type is no longer
  ///     browsed. The built-in browser does not stop by itself.
  ///   - onEvent: Every instance resolved, changed or gone.
  /// - Throws: ``DiscoveryError/systemUnavailable`` for ``DiscoveryBackend/system`` when
  ///   the library is missing or its daemon does not answer; ``DiscoveryError/localNetworkDenied``
  ///   when the system refused this program local network access;
  ///   ``DiscoveryError/unsupported`` for
  ///   ``DiscoveryBackend/builtin`` where the built-in responder does not run;
  ///   ``DiscoveryError/invalidServiceType``,
  ///   ``DiscoveryError/socket``.
  public static func browser(
    backend: DiscoveryBackend, types: [String], interfaceNames: [String]? = nil, log: Log = .disabled,
    onFailure: @escaping @Sendable (DiscoveryError) -> Void = { _ in },
    onEvent: @escaping @Sendable (MDNSBrowserEvent) -> Void
  ) throws(DiscoveryError) -> any ServiceBrowser {
    switch try chosen(backend, log: log) {
    case .auto, .builtin:
      return try MDNSBrowserSession(types: types, interfaceNames: interfaceNames, log: log, onEvent: onEvent)
    case .system:
      return try SystemBrowser(
        types: types, interfaceNames: interfaceNames, log: log, onFailure: onFailure, onEvent: onEvent)
    }
  }

  /// The ``DiscoveryError`` for a DNS-SD error code (`DNSServiceErrorType`, such as
  /// Network.framework's `NWError.dns`) from `call`: the same mapping the system backend uses
  /// (``DiscoveryError/localNetworkDenied`` for `kDNSServiceErr_PolicyDenied`, -65570), the
  /// message naming the call and the constant.
  package static func dnsServiceError(_ code: Int32, call: String) -> DiscoveryError {
    SystemDNSSD.error(code, call: call)
  }

  /// `kDNSServiceErr_PolicyDenied` (-65570): the system refused local network access.
  package static var policyDeniedCode: Int32 { SystemDNSSD.policyDenied }

  /// ``decide(_:builtinRuns:systemUnavailable:platform:)`` for this machine, with one info
  /// line saying what `auto` picked and why.
  private static func chosen(_ backend: DiscoveryBackend, log: Log) throws(DiscoveryError)
    -> DiscoveryBackend
  {
    // The daemon is asked only when the answer matters (auto).
    let unavailable = backend == .auto ? systemUnavailableReason : nil
    let result = try decide(
      backend, builtinRuns: builtinRunsHere, systemUnavailable: unavailable, platform: BuildPlatform.name
    ).get()
    if backend == .auto {
      let why =
        systemUnavailableReason.map { "auto: \($0.message)" } ?? "auto: the system's DNS-SD daemon answers"
      log.info("mDNS backend \(result.rawValue)", metadata: ["backend": result.rawValue, "reason": why])
    }
    return result
  }
}
