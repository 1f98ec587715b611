import SwitchboardDNS
import SwitchboardIO
import SwitchboardLog
import Synchronization

/// The system backend's advertiser: one `DNSServiceRegister` per service, on the daemon's
/// own host name, on an event loop of its own. The daemon probes, announces, defends and
/// renames (avahi: `Name #2`); ``MDNSEvent``s follow the built-in advertiser's:
/// ``MDNSEvent/renamed(_:from:to:)`` when the daemon chose another name,
/// ``MDNSEvent/registered(_:name:)`` once it is live and its host name is known (a resolve
/// of the service itself, at most ``hostLookupTimeout``), ``MDNSEvent/failed(_:_:)``.
/// Withdrawing a service deallocates its registration: the daemon sends the goodbyes.
final class SystemAdvertiser: ServiceAdvertiser, @unchecked Sendable {
  // Safety: `registrations`, `nextID` and `warnedTypes` are used only on `loop`'s thread
  // (every method hops there); `daemonHost` and `lifecycle` are behind their mutexes.

  private enum Lifecycle {
    case running
    case stopped
  }

  /// Where one registration stands.
  private enum Phase: Equatable {
    /// Asked of the daemon under `name`.
    case registering(name: String)
    /// Live under `name`; its host name is being looked up before it is reported.
    case lookingUpHost(name: String)
    /// Live and reported under `name`.
    case registered(name: String)
    /// Failed and reported; nothing runs.
    case failed

    var name: String? {
      switch self {
      case .registering(let name), .lookingUpHost(let name), .registered(let name): name
      case .failed: nil
      }
    }
  }

  private struct Registration {
    let service: MDNSService
    var phase: Phase
    var operation: DNSSDOperation?
    var hostLookup: DNSSDOperation?
    var hostTimer: Scheduled?
  }

  /// How long ``MDNSEvent/registered(_:name:)`` waits for the host name.
  static let hostLookupTimeout: Duration = .seconds(3)

  /// Always ``DiscoveryBackend/system``.
  let backend = DiscoveryBackend.system
  private let loop: EventLoop
  private let configuration: MDNSAdvertiser.Configuration
  private let interface: UInt32
  private let onEvent: @Sendable (MDNSEvent) -> Void
  private var registrations: [MDNSServiceID: Registration] = [:]
  private var nextID = 1
  private var warnedTypes: Set<String> = []
  private let daemonHost = Mutex<String?>(nil)
  private let lifecycle = Mutex(Lifecycle.running)

  /// An advertiser on the system's daemon. `configuration.hostName` is not used (the daemon
  /// publishes under its own); `interfaceNames` may name one interface, else all are used.
  /// - Throws: ``DiscoveryError/systemUnavailable`` when the library is missing or its
  ///   daemon does not answer, ``DiscoveryError/socket`` when no event loop can start.
  init(configuration: MDNSAdvertiser.Configuration, onEvent: @escaping @Sendable (MDNSEvent) -> Void)
    throws(DiscoveryError)
  {
    if case .failure(let error) = SystemDNSSD.daemon { throw error }
    let named = configuration.interfaceNames.map { MDNSTransport.interfaces($0) } ?? []
    if named.count > 1 {
      configuration.log.warning("the system backend publishes on one interface or on all: using all")
    }
    interface = named.count == 1 ? named[0].index : SystemDNSSD.anyInterface
    do {
      loop = try EventLoop(index: 0)
    } catch {
      throw DiscoveryError.socket.with("event loop: \(error)")
    }
    self.configuration = configuration
    self.onEvent = onEvent
  }

  /// The daemon's host name (label), once a registration revealed it; until then the
  /// configured one.
  var hostName: String { daemonHost.withLock { $0 } ?? configuration.hostName }

  /// Asks the daemon to publish `service`.
  /// - Throws: ``DiscoveryError/invalidServiceType``, ``DiscoveryError/invalidInstanceName``,
  ///   ``DiscoveryError/systemUnavailable``, ``DiscoveryError/stopped`` after ``shutdown()``.
  func register(_ service: MDNSService) throws(DiscoveryError) -> MDNSServiceID {
    _ = try service.instanceName(service.instance)
    // After shutdown the loop is gone: never wait for it.
    guard isRunning else { throw DiscoveryError.stopped.with("the advertiser was shut down") }
    let result = loop.runAndWait { () -> Result<MDNSServiceID, DiscoveryError> in
      if service.hasLongServiceName, self.warnedTypes.insert(service.type.lowercased()).inserted {
        let text =
          "service type \(service.type): the name is over \(MDNSService.recommendedServiceNameLength) "
          + "characters (RFC 6763 §7.2); handed to the system's daemon as it is"
        self.configuration.log.warning("\(text)")
        self.onEvent(.warning(text))
      }
      let id = MDNSServiceID(rawValue: self.nextID)
      self.nextID += 1
      do throws(DiscoveryError) {
        let operation = try DNSSDOperation.register(service, interface: self.interface, on: self.loop) {
          [weak self] reply in
          self?.replied(reply, for: id)
        }
        self.registrations[id] = Registration(
          service: service, phase: .registering(name: service.instance), operation: operation)
        return .success(id)
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  /// Withdraws a service (the daemon sends goodbyes).
  func unregister(_ id: MDNSServiceID) {
    guard isRunning else { return }
    loop.runAndWait {
      guard let registration = self.registrations.removeValue(forKey: id) else { return }
      self.stop(registration)
    }
  }

  /// Withdraws everything and stops the loop. Safe to call more than once.
  func shutdown() {
    let first = lifecycle.withLock { state -> Bool in
      defer { state = .stopped }
      return state == .running
    }
    guard first else { return }
    loop.runAndWait {
      for registration in self.registrations.values { self.stop(registration) }
      self.registrations = [:]
    }
    loop.shutdownGracefully()
  }

  deinit { shutdown() }

  private var isRunning: Bool { lifecycle.withLock { $0 == .running } }

  // MARK: Loop side

  private func stop(_ registration: Registration) {
    registration.hostTimer?.cancel()
    registration.hostLookup?.cancel()
    registration.operation?.cancel()
  }

  private func replied(_ reply: DNSSDOperation.Reply, for id: MDNSServiceID) {
    guard var registration = registrations[id] else { return }
    switch reply {
    case .registered(let name):
      guard let previous = registration.phase.name else { return }
      if name != previous { onEvent(.renamed(id, from: previous, to: name)) }
      switch registration.phase {
      case .registered where name == previous:
        // Registered again under the same name (avahi re-publishes after its host name
        // changed): look the host up again, to report the new one.
        registration = lookUpHost(registration, id: id, name: name, report: false)
      case .registering, .lookingUpHost, .registered:
        registration.phase = .lookingUpHost(name: name)
        registration = lookUpHost(registration, id: id, name: name, report: true)
      case .failed:
        return
      }
      registrations[id] = registration
    case .failed(let error):
      stop(registration)
      registration.phase = .failed
      registration.operation = nil
      registrations[id] = registration
      onEvent(.failed(id, error))
    case .browsed, .resolved, .record:
      break
    }
  }

  /// Resolves the registered service itself to learn the daemon's host name (the SRV
  /// target), then reports the registration when `report` (at the latest after
  /// ``hostLookupTimeout``).
  private func lookUpHost(_ registration: Registration, id: MDNSServiceID, name: String, report: Bool)
    -> Registration
  {
    var registration = registration
    registration.hostLookup?.cancel()
    registration.hostTimer?.cancel()
    registration.hostLookup = try? DNSSDOperation.resolve(
      name: name, type: registration.service.type, domain: SystemDNSSD.domain, interface: interface, on: loop
    ) { [weak self] reply in
      guard let self, case .resolved(_, let host, _, _) = reply else { return }
      self.learnedHost(host)
      self.finishHostLookup(id, report: report)
    }
    registration.hostTimer = loop.scheduleLocal(after: Self.hostLookupTimeout) { [weak self] in
      self?.finishHostLookup(id, report: report)
    }
    return registration
  }

  private func finishHostLookup(_ id: MDNSServiceID, report: Bool) {
    guard var registration = registrations[id] else { return }
    registration.hostTimer?.cancel()
    registration.hostTimer = nil
    registration.hostLookup?.cancel()
    registration.hostLookup = nil
    if report, case .lookingUpHost(let name) = registration.phase {
      registration.phase = .registered(name: name)
      registrations[id] = registration
      onEvent(.registered(id, name: name))
    } else {
      registrations[id] = registration
    }
  }

  /// `vm.local.` → `vm`; a change after the first is reported as the host's rename.
  private func learnedHost(_ target: String) {
    var label = SystemBrowseState.trimmed(target)
    if label.lowercased().hasSuffix(".local") { label = String(label.dropLast(".local".count)) }
    let previous = daemonHost.withLock { host -> String? in
      defer { host = label }
      return host
    }
    if let previous, previous != label { onEvent(.renamed(nil, from: previous, to: label)) }
  }
}
