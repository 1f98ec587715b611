import SwitchboardDNS
import SwitchboardIO

/// An mDNS/DNS-SD browser (RFC 6762 §5, §10; RFC 6763 §4, §12) as a pure state machine:
/// continuous PTR queries for each type with the RFC's back-off (1 s, doubling, capped at an
/// hour) carrying known answers, a TTL cache with goodbyes and the one-second cache-flush
/// rule, and resolution of each instance to host, port, addresses and TXT, asking for SRV,
/// TXT, A and AAAA itself when a responder did not send them as additional records. The
/// records of the instances it follows are refreshed at 80, 85, 90 and 95 % of their TTL
/// (§5.2), and known answers that do not fit one packet continue in the next (TC, §7.2).
public struct MDNSBrowser: Sendable {
  struct CacheEntry: Sendable {
    var record: DNSRecord
    var received: Deadline
    var expires: Deadline
    /// When to ask for it again if nothing refreshed it (§5.2), earliest first; emptied by a
    /// goodbye or a cache flush, which shorten its life on purpose.
    var refresh: [Deadline]
  }

  struct InstanceKey: Sendable, Hashable {
    let interface: UInt32
    let name: DNSName
  }

  struct TypeQuery: Sendable {
    let name: DNSName
    let text: String
    var next: Deadline
    var interval: Duration
  }

  /// The first interval between queries, and the cap (RFC 6762 §5.2).
  public static let firstInterval: Duration = .seconds(1)
  /// The longest interval between queries (RFC 6762 §5.2: 60 minutes).
  public static let maxInterval: Duration = .seconds(3600)

  /// The largest query payload, in bytes; known answers beyond it go in follow-up packets
  /// with TC set (RFC 6762 §7.2). The default, 1452, is an Ethernet frame less IPv6 and UDP
  /// headers; values below 512 are taken as 512.
  public var maxMessageSize = MDNSPacketSplitter.defaultLimit

  var interfaces: [MDNSInterface]
  var queries: [TypeQuery]
  var cache: [UInt32: [MDNSResponder.RecordKey: CacheEntry]] = [:]
  /// Per interface, the cached records of the instances being resolved or resolved (their
  /// PTR, SRV, TXT and the SRV target's addresses): the ones worth refreshing (§5.2).
  var interested: [UInt32: Set<MDNSResponder.RecordKey>] = [:]
  var reported: [InstanceKey: MDNSResolvedService] = [:]
  var lastResolve: [InstanceKey: Deadline] = [:]
  /// Instances with a PTR that do not resolve yet: asked again a second after the last ask.
  var unresolved: Set<InstanceKey> = []
  private var random: MDNSRandom
  private var scheduled: Deadline?

  /// A browser for `types` (`_switchboard._tcp`…) on `interfaces`; the first query goes out
  /// 20–120 ms from `now`.
  /// - Throws: ``DiscoveryError/invalidServiceType``.
  public init(
    types: [String], interfaces: [MDNSInterface], now: Deadline,
    randomSeed: UInt64 = .random(in: 0...UInt64.max)
  )
    throws(DiscoveryError)
  {
    var random = MDNSRandom(seed: randomSeed)
    var queries: [TypeQuery] = []
    for type in types {
      let name = try MDNSService(instance: "x", type: type, port: 0).typeName()
      let first = now.adding(.milliseconds(Int.random(in: 20...120, using: &random)))
      queries.append(TypeQuery(name: name, text: type, next: first, interval: Self.firstInterval))
    }
    self.random = random
    self.queries = queries
    self.interfaces = interfaces
  }

  /// When ``timerFired(now:)`` is next needed.
  public var nextDeadline: Deadline? {
    var next = queries.map(\.next).min()
    for key in unresolved {
      if let last = lastResolve[key] { next = min(next ?? last, last.adding(.seconds(1))) }
    }
    for (index, entries) in cache {
      let wanted = interested[index] ?? []
      for (key, entry) in entries {
        next = min(next ?? entry.expires, entry.expires)
        if let refresh = entry.refresh.first, wanted.contains(key) { next = min(next!, refresh) }
      }
    }
    return next
  }

  /// The timer fired: expire cached records, send the queries that are due.
  public mutating func timerFired(now: Deadline) -> [MDNSBrowserAction] {
    scheduled = nil
    var actions: [MDNSBrowserAction] = []
    for index in cache.keys { cache[index] = cache[index]!.filter { $0.value.expires > now } }
    actions += refreshQueries(now: now)
    for i in queries.indices where queries[i].next <= now {
      for interface in interfaces {
        for message in query(queries[i], on: interface.index, now: now) {
          actions.append(.send(message, to: .multicast(interface: interface.index)))
        }
      }
      queries[i].next = now.adding(queries[i].interval)
      queries[i].interval = min(queries[i].interval * 2, Self.maxInterval)
    }
    actions += reconcile(now: now)
    actions += scheduleIfNeeded()
    return actions
  }

  /// A message arrived: responses feed the cache (queries are other browsers' business).
  public mutating func receive(
    _ message: DNSMessage, from source: SocketAddress, interface index: UInt32, now: Deadline
  ) -> [MDNSBrowserAction] {
    guard message.flags.isResponse, message.flags.opcode == 0, message.flags.responseCode == 0,
      interfaces.contains(where: { $0.index == index })
    else { return [] }
    var entries = cache[index] ?? [:]
    let oneSecond = now.adding(.seconds(1))
    for record in message.answers + message.additionals {
      let key = MDNSResponder.RecordKey(record)
      if record.ttl == 0 {
        // §10.1: a goodbye; keep it one more second.
        if entries[key] != nil {
          entries[key]!.expires = min(entries[key]!.expires, oneSecond)
          entries[key]!.refresh = []
        }
        continue
      }
      if record.cacheFlush {
        // §10.2: older records of this name and type go within a second.
        for (other, entry) in entries
        where entry.record.type == record.type && entry.received.adding(.seconds(1)) < now
          && entry.record.name == record.name && other != key
        {
          entries[other]!.expires = min(entry.expires, oneSecond)
          entries[other]!.refresh = []
        }
      }
      entries[key] = CacheEntry(
        record: record, received: now, expires: now.adding(.seconds(Int64(record.ttl))),
        refresh: refreshTimes(ttl: record.ttl, from: now))
    }
    cache[index] = entries
    var actions = reconcile(now: now)
    actions += scheduleIfNeeded()
    return actions
  }

  /// The PTR query for a type on one interface, with its known answers (§7.1), in as many
  /// packets as they need (§7.2).
  func query(_ type: TypeQuery, on index: UInt32, now: Deadline) -> [DNSMessage] {
    queryPackets([DNSQuestion(name: type.name, type: .ptr)], on: index, now: now)
  }

  /// Questions with the cached records answering them that have more than half their TTL
  /// left (§7.1), at their remaining TTL; TC on every packet but the last (§7.2).
  func queryPackets(_ questions: [DNSQuestion], on index: UInt32, now: Deadline) -> [DNSMessage] {
    let known = (cache[index] ?? [:]).values.filter { entry in
      questions.contains { $0.name == entry.record.name && $0.type == entry.record.type }
        && entry.expires > now
        && (entry.expires.nanoseconds - now.nanoseconds) > UInt64(entry.record.ttl) * 500_000_000
    }
    .sorted { $0.received < $1.received }
    .map { entry in
      var record = entry.record
      record.ttl = UInt32((entry.expires.nanoseconds - now.nanoseconds) / 1_000_000_000)
      return record
    }
    return MDNSPacketSplitter(limit: maxMessageSize).queries(
      DNSMessage(), questions: questions, knownAnswers: known)
  }

  /// §5.2: 80, 85, 90 and 95 % of the TTL from `received`, each plus 0–2 % of the TTL at
  /// random so that many browsers do not ask at the same instant.
  private mutating func refreshTimes(ttl: UInt32, from received: Deadline) -> [Deadline] {
    let percent = UInt64(ttl) * 10_000_000  // nanoseconds in 1 % of the TTL
    return [80, 85, 90, 95].map { share in
      received.adding(
        .nanoseconds(Int64(percent * share + UInt64.random(in: 0...(2 * percent), using: &random))))
    }
  }

  /// Asks again for the followed records whose refresh time came (§5.2), one query per
  /// interface; a record not refreshed by its last one expires at its TTL.
  private mutating func refreshQueries(now: Deadline) -> [MDNSBrowserAction] {
    var actions: [MDNSBrowserAction] = []
    for interface in interfaces {
      guard let wanted = interested[interface.index], var entries = cache[interface.index] else { continue }
      var questions: [DNSQuestion] = []
      for (key, entry) in entries.sorted(by: { $0.value.received < $1.value.received })
      where wanted.contains(key) && entry.refresh.first.map({ $0 <= now }) == true {
        entries[key]!.refresh.removeAll { $0 <= now }
        let question = DNSQuestion(name: entry.record.name, type: entry.record.type)
        if !questions.contains(question) { questions.append(question) }
      }
      cache[interface.index] = entries
      for message in questions.isEmpty ? [] : queryPackets(questions, on: interface.index, now: now) {
        actions.append(.send(message, to: .multicast(interface: interface.index)))
      }
    }
    return actions
  }

  /// Compares what the cache resolves to with what was reported; asks for what is missing.
  private mutating func reconcile(now: Deadline) -> [MDNSBrowserAction] {
    var actions: [MDNSBrowserAction] = []
    var present = Set<InstanceKey>()
    unresolved = []
    interested = [:]
    for interface in interfaces {
      let entries = Array((cache[interface.index] ?? [:]).values).sorted { $0.received < $1.received }
      // By owner name, oldest first: resolving each instance is then a few lookups.
      let byName = Dictionary(grouping: entries, by: \.record.name)
      for type in queries {
        for entry in byName[type.name] ?? [] {
          guard case .ptr(let instance) = entry.record.rdata, instance.labelCount > 0 else { continue }
          let key = InstanceKey(interface: interface.index, name: instance)
          present.insert(key)
          interested[interface.index, default: []].formUnion(followed(instance, ptr: entry, in: byName))
          guard let resolved = resolve(instance, type: type.text, in: byName, interface: interface.index)
          else {
            unresolved.insert(key)
            actions += askFor(instance, key: key, own: byName[instance] ?? [], now: now)
            continue
          }
          switch reported[key] {
          case nil: actions.append(.event(.added(resolved)))
          case let old? where old != resolved: actions.append(.event(.updated(resolved)))
          default: break
          }
          reported[key] = resolved
        }
      }
    }
    for key in reported.keys.sorted(by: { $0.name.description < $1.name.description })
    where !present.contains(key) {
      let old = reported.removeValue(forKey: key)!
      actions.append(.event(.removed(instance: old.instance, type: old.type, interface: key.interface)))
    }
    return actions
  }

  /// The cache keys of an instance's PTR, SRV, TXT and its SRV targets' addresses.
  private func followed(_ instance: DNSName, ptr: CacheEntry, in byName: [DNSName: [CacheEntry]])
    -> [MDNSResponder.RecordKey]
  {
    var keys = [MDNSResponder.RecordKey(ptr.record)]
    var targets: [DNSName] = []
    for entry in byName[instance] ?? [] {
      switch entry.record.rdata {
      case .srv(_, _, _, let target):
        keys.append(MDNSResponder.RecordKey(entry.record))
        if !targets.contains(target) { targets.append(target) }
      case .txt: keys.append(MDNSResponder.RecordKey(entry.record))
      default: break
      }
    }
    for entry in targets.flatMap({ byName[$0] ?? [] })
    where entry.record.type == .a || entry.record.type == .aaaa {
      keys.append(MDNSResponder.RecordKey(entry.record))
    }
    return keys
  }

  private func resolve(
    _ instance: DNSName, type: String, in byName: [DNSName: [CacheEntry]], interface: UInt32
  ) -> MDNSResolvedService? {
    let own = byName[instance] ?? []
    guard case .srv(_, _, let port, let target)? = own.last(where: { $0.record.type == .srv })?.record.rdata,
      case .txt(let txt)? = own.last(where: { $0.record.type == .txt })?.record.rdata
    else { return nil }
    var ipv4: [DNSIPv4Address] = []
    var ipv6: [DNSIPv6Address] = []
    for entry in byName[target] ?? [] {
      if case .a(let address) = entry.record.rdata, !ipv4.contains(address) { ipv4.append(address) }
      if case .aaaa(let address) = entry.record.rdata, !ipv6.contains(address) { ipv6.append(address) }
    }
    guard !ipv4.isEmpty || !ipv6.isEmpty else { return nil }
    let label = instance.labels[0]
    var host = target.description
    if host.hasSuffix(".") { host.removeLast() }
    return MDNSResolvedService(
      instance: String(decoding: label, as: UTF8.self), type: type, host: host, port: port, txt: txt,
      ipv4: ipv4.sorted { $0.rawValue < $1.rawValue },
      ipv6: ipv6.sorted { ($0.high, $0.low) < ($1.high, $1.low) },
      interface: interface)
  }

  /// Queries SRV and TXT of an instance and the addresses of its host, at most once a second.
  private mutating func askFor(_ instance: DNSName, key: InstanceKey, own: [CacheEntry], now: Deadline)
    -> [MDNSBrowserAction]
  {
    if let last = lastResolve[key], now < last.adding(.seconds(1)) { return [] }
    lastResolve[key] = now
    var questions = [DNSQuestion(name: instance, type: .srv), DNSQuestion(name: instance, type: .txt)]
    if case .srv(_, _, _, let target)? = own.last(where: { $0.record.type == .srv })?.record.rdata {
      questions += [DNSQuestion(name: target, type: .a), DNSQuestion(name: target, type: .aaaa)]
    }
    return queryPackets(questions, on: key.interface, now: now).map {
      .send($0, to: .multicast(interface: key.interface))
    }
  }

  private mutating func scheduleIfNeeded() -> [MDNSBrowserAction] {
    let next = nextDeadline
    guard next != scheduled else { return [] }
    scheduled = next
    return next.map { [.scheduleTimer(at: $0)] } ?? []
  }
}
