import SwitchboardDNS
import SwitchboardIO

/// An mDNS/DNS-SD responder (RFC 6762, RFC 6763) as a pure state machine: events in (time,
/// a received message, register, unregister, shutdown), ``MDNSResponderAction``s out (send
/// this message there, call me back then, a name was taken). No sockets, no clock: the shell
/// (``MDNSAdvertiser``) carries the actions out, and tests drive it with a manual clock.
///
/// It owns one host name (`HOST.local`, A/AAAA per interface) and any number of services
/// (PTR, SRV, TXT and the `_services._dns-sd._udp.local` enumeration PTR). Each unique name
/// is probed, announced and defended (``MDNSNameState``); conflicts rename it (`Name (2)`,
/// `host-2`) up to ``MDNSResponderConfiguration/maxRenames``. docs/DISCOVERY.md lists the
/// RFC behaviours and the tests that check each.
public struct MDNSResponder: Sendable {
  /// Who a unique name belongs to.
  enum Owner: Sendable, Hashable {
    case host
    case service(MDNSServiceID)
  }

  /// One registered service.
  struct Registration: Sendable {
    var service: MDNSService
    /// The instance label in use (the service's own, or a renamed one).
    var instance: String
    var renames: Int
    var state: MDNSNameState
    /// Its records went out under ``instance``, so goodbyes are owed.
    var announced: Bool
  }

  /// The host name.
  struct Host: Sendable {
    var label: String
    var renames: Int
    var state: MDNSNameState
  }

  /// A record waiting to be multicast (a delayed or rate-limited answer).
  struct PendingAnswer: Sendable {
    var record: DNSRecord
    var due: Deadline
  }

  /// Record identity for suppression and rate limiting: name and data, not TTL or flags.
  struct RecordKey: Sendable, Hashable {
    let name: DNSName
    let rdata: DNSRecordData
    init(_ record: DNSRecord) {
      name = record.name
      rdata = record.rdata
    }
  }

  struct MulticastKey: Sendable, Hashable {
    let record: RecordKey
    let interface: UInt32
  }

  enum Lifecycle: Sendable, Hashable {
    case running
    case stopped
  }

  /// `local.`
  static let local = try! DNSName(labels: ["local"])
  /// `_services._dns-sd._udp.local.` (RFC 6763 §9).
  static let servicesName = try! DNSName(labels: ["_services", "_dns-sd", "_udp", "local"])

  let configuration: MDNSResponderConfiguration
  var interfaces: [MDNSInterface]
  var host: Host
  var registrations: [MDNSServiceID: Registration] = [:]
  var pending: [UInt32: [PendingAnswer]] = [:]
  var lastMulticast: [MulticastKey: Deadline] = [:]
  var random: MDNSRandom
  var lifecycle = Lifecycle.running
  /// TC queries collecting known answers (RFC 6762 §7.2), by querier.
  var deferred: [MDNSDeferredQuery.Source: MDNSDeferredQuery] = [:]
  /// Conflicts seen lately, to slow probing down (RFC 6762 §8.1).
  var conflicts: MDNSConflictRateLimit
  /// Keeps every message within one packet (RFC 6762 §17).
  let splitter: MDNSPacketSplitter
  /// Legacy unicast answers per source (RFC 6762 §6.7 answers go to whoever asked).
  var legacyRateLimit: MDNSLegacyRateLimit
  /// What was refused (read with ``statistics``).
  var counts = MDNSResponderStatistics()
  private var nextID = 1
  private var scheduled: Deadline?
  private var warnedTypes: Set<String> = []

  /// A responder that starts probing its host name now.
  /// - Throws: ``DiscoveryError/invalidHostName`` when the host name is not one label.
  public init(configuration: MDNSResponderConfiguration, now: Deadline) throws(DiscoveryError) {
    let label = configuration.hostName
    guard !label.isEmpty, label.utf8.count <= DNSName.maxLabelLength, !label.contains(".") else {
      throw DiscoveryError.invalidHostName.with("'\(label)' is not one DNS label of 1–63 bytes")
    }
    self.configuration = configuration
    self.interfaces = configuration.interfaces
    self.random = MDNSRandom(seed: configuration.randomSeed)
    self.conflicts = MDNSConflictRateLimit(
      limit: configuration.conflictLimit, window: configuration.conflictWindow,
      pause: configuration.conflictPause)
    self.splitter = MDNSPacketSplitter(limit: configuration.maxMessageSize)
    self.legacyRateLimit = MDNSLegacyRateLimit(
      burst: configuration.legacyUnicastBurst, interval: configuration.legacyUnicastInterval,
      maxSources: configuration.maxLegacyUnicastSources)
    self.host = Host(label: label, renames: 0, state: .probing(sent: 0, next: now))
    host.state = .probing(sent: 0, next: now.adding(randomDelay(upTo: configuration.initialProbeDelay)))
  }

  // MARK: What the shell asks

  /// The host name in use (`vm`, or `vm-2` after a conflict).
  public var hostName: String { host.label }

  /// The instance name a service is published under now (it changes on a rename).
  public func instanceName(of id: MDNSServiceID) -> String? { registrations[id]?.instance }

  /// Whether the service's name is won (being announced or announced).
  public func isRegistered(_ id: MDNSServiceID) -> Bool { registrations[id]?.state.isAnswerable ?? false }

  /// Queries ignored as off-link or rate-limited, and legacy queries answered.
  public var statistics: MDNSResponderStatistics { counts }

  /// When ``timerFired(now:)`` is next needed.
  public var nextDeadline: Deadline? {
    guard lifecycle == .running else { return nil }
    var next = host.state.next
    for registration in registrations.values {
      if let due = registration.state.next { next = min(next ?? due, due) }
    }
    for answers in pending.values {
      for answer in answers { next = min(next ?? answer.due, answer.due) }
    }
    for query in deferred.values { next = min(next ?? query.due, query.due) }
    return next
  }

  // MARK: Events

  /// Adds a service: it is probed (after the host name), then announced.
  /// - Returns: its id, and the actions (a warning for a long service name, a timer).
  /// - Throws: ``DiscoveryError/invalidServiceType``, ``DiscoveryError/invalidInstanceName``,
  ///   ``DiscoveryError/invalidTXT`` (a TXT record too big for one 9000-byte packet),
  ///   ``DiscoveryError/stopped``.
  public mutating func register(_ service: MDNSService, now: Deadline) throws(DiscoveryError) -> (
    MDNSServiceID, [MDNSResponderAction]
  ) {
    guard lifecycle == .running else { throw DiscoveryError.stopped.with("the responder was shut down") }
    let txt = DNSRecord(name: try service.instanceName(service.instance), ttl: 0, rdata: .txt(service.txt))
    guard MDNSPacketSplitter.fitsOnePacket(txt) else {
      throw DiscoveryError.invalidTXT.with(
        "the TXT record of \(service.instance) does not fit in one mDNS packet (RFC 6762 §17: 9000 bytes)")
    }
    var actions: [MDNSResponderAction] = []
    if service.hasLongServiceName, warnedTypes.insert(service.type.lowercased()).inserted {
      actions.append(
        .warning(
          "service type \(service.type): the name is over \(MDNSService.recommendedServiceNameLength) characters "
            + "(RFC 6763 §7.2); published anyway, as Apple's and avahi's responders do"))
    }
    let id = MDNSServiceID(rawValue: nextID)
    nextID += 1
    let start = now.adding(randomDelay(upTo: configuration.initialProbeDelay))
    registrations[id] = Registration(
      service: service, instance: service.instance, renames: 0, state: .probing(sent: 0, next: start),
      announced: false)
    actions += scheduleIfNeeded()
    return (id, actions)
  }

  /// Withdraws a service, with goodbyes (TTL 0) when it had been announced.
  public mutating func unregister(_ id: MDNSServiceID, now: Deadline) -> [MDNSResponderAction] {
    guard lifecycle == .running, let registration = registrations.removeValue(forKey: id) else { return [] }
    var actions = goodbyes(for: [registration])
    for index in pending.keys {
      let names = Set(serviceRecords(registration).map(RecordKey.init))
      pending[index]?.removeAll { names.contains(RecordKey($0.record)) }
    }
    actions += scheduleIfNeeded()
    return actions
  }

  /// Sends goodbyes for every announced service and stops: later events do nothing.
  /// (The host's addresses get no goodbye, as avahi does: another program may use the name.)
  public mutating func shutdown(now: Deadline) -> [MDNSResponderAction] {
    guard lifecycle == .running else { return [] }
    let all = registrations.keys.sorted().compactMap { registrations[$0] }
    let actions = goodbyes(for: all)
    lifecycle = .stopped
    registrations = [:]
    pending = [:]
    deferred = [:]
    return actions
  }

  /// Replaces the interface list (interfaces appear and disappear, addresses change): names
  /// already won are announced again everywhere, and pending answers on vanished interfaces
  /// are dropped.
  public mutating func updateInterfaces(_ interfaces: [MDNSInterface], now: Deadline) -> [MDNSResponderAction]
  {
    guard lifecycle == .running, interfaces != self.interfaces else { return [] }
    self.interfaces = interfaces
    let kept = Set(interfaces.map(\.index))
    pending = pending.filter { kept.contains($0.key) }
    deferred = deferred.filter { kept.contains($0.key.interface) }
    if host.state.isAnswerable { move(.host, to: .announcing(sent: 0, next: now)) }
    for id in registrations.keys where registrations[id]!.state.isAnswerable {
      move(.service(id), to: .announcing(sent: 0, next: now))
    }
    return scheduleIfNeeded()
  }

  /// The timer requested by ``MDNSResponderAction/scheduleTimer(at:)`` fired: sends the
  /// probes, announcements and delayed answers that are due.
  public mutating func timerFired(now: Deadline) -> [MDNSResponderAction] {
    guard lifecycle == .running else { return [] }
    scheduled = nil
    var actions: [MDNSResponderAction] = []
    var probing: [Owner] = []
    var announcing: [Owner] = []
    let owners = [Owner.host] + registrations.keys.sorted().map { Owner.service($0) }
    for owner in owners {
      advance(owner, now: now, probing: &probing, announcing: &announcing, actions: &actions)
    }
    for interface in interfaces {
      for probe in probes(for: probing, on: interface) {
        actions.append(.send(probe, to: .multicast(interface: interface.index)))
      }
      for announcement in announcements(for: announcing, on: interface) {
        for record in announcement.answers { noteMulticast(record, on: interface.index, now: now) }
        actions.append(.send(announcement, to: .multicast(interface: interface.index)))
      }
    }
    answerDeferredQueries(now: now, actions: &actions)
    actions += sendDueAnswers(now: now)
    actions += scheduleIfNeeded()
    return actions
  }

  // MARK: State changes

  /// Moves a name's state, checking the transition.
  mutating func move(_ owner: Owner, to next: MDNSNameState) {
    switch owner {
    case .host:
      precondition(host.state.allows(next), "host name: \(host.state) → \(next)")
      host.state = next
    case .service(let id):
      guard let current = registrations[id]?.state else { return }
      precondition(current.allows(next), "\(id): \(current) → \(next)")
      registrations[id]!.state = next
    }
  }

  func state(of owner: Owner) -> MDNSNameState? {
    switch owner {
    case .host: host.state
    case .service(let id): registrations[id]?.state
    }
  }

  private mutating func advance(
    _ owner: Owner, now: Deadline, probing: inout [Owner], announcing: inout [Owner],
    actions: inout [MDNSResponderAction]
  ) {
    guard let state = state(of: owner), let due = state.next, due <= now else { return }
    switch state {
    case .probing(let sent, _) where sent < configuration.probeCount:
      probing.append(owner)
      move(owner, to: .probing(sent: sent + 1, next: now.adding(configuration.probeInterval)))
    case .probing(let sent, _):
      // SRV names the host: a service is announced only once the host name is won.
      if case .service = owner, !host.state.isAnswerable {
        move(owner, to: .probing(sent: sent, next: now.adding(configuration.probeInterval)))
        return
      }
      move(owner, to: .announcing(sent: 0, next: now))
      advance(owner, now: now, probing: &probing, announcing: &announcing, actions: &actions)
    case .announcing(let sent, _):
      announcing.append(owner)
      let next: MDNSNameState =
        sent + 1 < configuration.announceCount
        ? .announcing(sent: sent + 1, next: now.adding(configuration.announceInterval)) : .established
      move(owner, to: next)
      if case .service(let id) = owner, sent == 0 {
        registrations[id]!.announced = true
        actions.append(.registered(id, name: registrations[id]!.instance))
      }
    case .established, .failed:
      break
    }
  }

  /// Another responder answered with different data for one of our unique names.
  mutating func conflict(_ owner: Owner, now: Deadline, actions: inout [MDNSResponderAction]) {
    guard let state = state(of: owner) else { return }
    // §8.1: fifteen conflicts in ten seconds, and each further probing waits five.
    let start = state == .failed ? now : conflicts.conflict(at: now)
    switch state {
    case .probing:
      rename(owner, start: start, actions: &actions)
    case .announcing, .established:
      // RFC 6762 §9: check again by probing; a defended name is renamed then.
      move(owner, to: .probing(sent: 0, next: start))
    case .failed:
      break
    }
  }

  /// Takes the next name (`Name (2)`, `host-2`) and probes it from `start`.
  private mutating func rename(_ owner: Owner, start: Deadline, actions: inout [MDNSResponderAction]) {
    switch owner {
    case .host:
      guard host.renames < configuration.maxRenames else {
        move(.host, to: .failed)
        actions.append(
          .failed(
            nil,
            DiscoveryError.nameConflict.with("host name \(host.label): \(host.renames) renames, giving up")))
        return
      }
      host.renames += 1
      let old = host.label
      host.label = Self.numbered(configuration.hostName, host.renames + 1, separator: "-")
      move(.host, to: .probing(sent: 0, next: start))
      actions.append(.renamed(nil, from: old, to: host.label))
      // The SRV records name the host: probe and announce them again under the new name.
      for id in registrations.keys where registrations[id]!.state.isAnswerable {
        move(.service(id), to: .probing(sent: 0, next: start))
      }
    case .service(let id):
      guard var registration = registrations[id] else { return }
      guard registration.renames < configuration.maxRenames else {
        registrations[id]!.state = .failed
        actions.append(
          .failed(
            id,
            DiscoveryError.nameConflict.with(
              "\(registration.instance): \(registration.renames) renames, giving up")))
        return
      }
      registration.renames += 1
      let old = registration.instance
      registration.instance = Self.numbered(
        registration.service.instance, registration.renames + 1, separator: " (")
      // The old name belongs to the other responder now: no goodbyes for it.
      registration.announced = false
      registrations[id] = registration
      move(owner, to: .probing(sent: 0, next: start))
      actions.append(.renamed(id, from: old, to: registration.instance))
    }
  }

  /// `Name (2)` / `host-2`, shortening the base so the label stays within 63 bytes.
  static func numbered(_ base: String, _ number: Int, separator: String) -> String {
    let suffix = separator == " (" ? " (\(number))" : "\(separator)\(number)"
    var base = Substring(base)
    while base.utf8.count + suffix.utf8.count > DNSName.maxLabelLength { base = base.dropLast() }
    return base + suffix
  }

  mutating func scheduleIfNeeded() -> [MDNSResponderAction] {
    let next = nextDeadline
    guard next != scheduled else { return [] }
    scheduled = next
    return next.map { [.scheduleTimer(at: $0)] } ?? []
  }

  mutating func randomDelay(upTo limit: Duration) -> Duration {
    let nanos =
      UInt64(limit.components.seconds) * 1_000_000_000 + UInt64(limit.components.attoseconds / 1_000_000_000)
    guard nanos > 0 else { return .zero }
    return .nanoseconds(Int64(UInt64.random(in: 0...nanos, using: &random)))
  }

  mutating func noteMulticast(_ record: DNSRecord, on interface: UInt32, now: Deadline) {
    lastMulticast[MulticastKey(record: RecordKey(record), interface: interface)] = now
  }
}
