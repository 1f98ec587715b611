import SwitchboardDNS

/// The records the responder owns and the messages built from them.
extension MDNSResponder {
  /// `HOST.local.`
  var hostFQDN: DNSName {
    // The label was checked in init and by `numbered`: one label of at most 63 bytes.
    try! Self.local.prepending(host.label)
  }

  func instanceFQDN(_ registration: Registration) -> DNSName {
    // Checked by `register` (and renames keep the label within 63 bytes).
    try! registration.service.instanceName(registration.instance)
  }

  /// A and AAAA of the host on one interface; unique, so with cache-flush.
  func hostRecords(on interface: MDNSInterface) -> [DNSRecord] {
    let ttl = configuration.hostRecordTTL
    return interface.ipv4.map { DNSRecord(name: hostFQDN, ttl: ttl, rdata: .a($0), cacheFlush: true) }
      + interface.ipv6.map { DNSRecord(name: hostFQDN, ttl: ttl, rdata: .aaaa($0), cacheFlush: true) }
  }

  /// PTR (shared), SRV and TXT (unique), and the enumeration PTR (shared) of one service.
  func serviceRecords(_ registration: Registration) -> [DNSRecord] {
    let instance = instanceFQDN(registration)
    let type = try! registration.service.typeName()
    let long = configuration.otherRecordTTL
    return [
      DNSRecord(name: type, ttl: long, rdata: .ptr(instance)),
      DNSRecord(
        name: instance, ttl: configuration.hostRecordTTL,
        rdata: .srv(priority: 0, weight: 0, port: registration.service.port, target: hostFQDN),
        cacheFlush: true),
      DNSRecord(name: instance, ttl: long, rdata: .txt(registration.service.txt), cacheFlush: true),
      DNSRecord(name: Self.servicesName, ttl: long, rdata: .ptr(type)),
    ]
  }

  /// The records whose name is won, on one interface: what questions are answered from.
  func answerableRecords(on interface: MDNSInterface) -> [DNSRecord] {
    guard host.state.isAnswerable else { return [] }
    var records = hostRecords(on: interface)
    var seen = Set(records.map(RecordKey.init))
    for id in registrations.keys.sorted() where registrations[id]!.state.isAnswerable {
      for record in serviceRecords(registrations[id]!) where seen.insert(RecordKey(record)).inserted {
        records.append(record)
      }
    }
    return records
  }

  /// The records answering one question (RFC 6762 §6: name, type or ANY, class IN or ANY).
  func records(answering question: DNSQuestion, on interface: MDNSInterface) -> [DNSRecord] {
    guard question.dnsClass == .internet || question.dnsClass == .any else { return [] }
    return answerableRecords(on: interface).filter {
      $0.name == question.name && (question.type == .any || $0.type == question.type)
    }
  }

  /// What a probe proposes for a name (RFC 6762 §8.2), without cache-flush (§10.2).
  func proposedRecords(_ owner: Owner, on interface: MDNSInterface) -> [DNSRecord] {
    let records: [DNSRecord]
    switch owner {
    case .host: records = hostRecords(on: interface)
    case .service(let id):
      guard let registration = registrations[id] else { return [] }
      records = serviceRecords(registration).filter { $0.cacheFlush }
    }
    return records.map {
      var record = $0
      record.cacheFlush = false
      return record
    }
  }

  func name(of owner: Owner) -> DNSName? {
    switch owner {
    case .host: hostFQDN
    case .service(let id): registrations[id].map(instanceFQDN)
    }
  }

  /// The probes for every name due (RFC 6762 §8.1): `ANY` questions, proposals in authority,
  /// as many names per packet as fit (each name's question and records stay together).
  /// QM, not QU: a unicast answer to port 5353 can land in another responder's socket.
  func probes(for owners: [Owner], on interface: MDNSInterface) -> [DNSMessage] {
    var groups: [DNSMessage] = []
    for owner in owners {
      let proposed = proposedRecords(owner, on: interface)
      guard let name = name(of: owner), !proposed.isEmpty else { continue }
      groups.append(DNSMessage(questions: [DNSQuestion(name: name, type: .any)], authorities: proposed))
    }
    return splitter.pack(DNSMessage(), groups)
  }

  /// Unsolicited responses with every record of the names due (RFC 6762 §8.3), in as few
  /// packets as they fit; services carry the host's addresses too, so a browser resolves a
  /// few services from one packet.
  func announcements(for owners: [Owner], on interface: MDNSInterface) -> [DNSMessage] {
    guard !owners.isEmpty else { return [] }
    var answers: [DNSRecord] = []
    var seen = Set<RecordKey>()
    func add(_ records: [DNSRecord]) {
      for record in records where seen.insert(RecordKey(record)).inserted { answers.append(record) }
    }
    for owner in owners {
      switch owner {
      case .host: add(hostRecords(on: interface))
      case .service(let id):
        guard let registration = registrations[id] else { continue }
        add(serviceRecords(registration))
        add(hostRecords(on: interface))
      }
    }
    return splitter.responses(DNSMessage(flags: .authoritativeResponse), answers: answers, additionals: [])
  }

  /// Goodbyes (TTL 0, RFC 6762 §10.1) for services withdrawn together, on every interface.
  /// The enumeration PTR goes only when no remaining service has that type.
  func goodbyes(for withdrawn: [Registration]) -> [MDNSResponderAction] {
    let remainingTypes = Set(
      registrations.values.filter { reg in
        reg.state.isAnswerable
          && !withdrawn.contains { $0.instance == reg.instance && $0.service == reg.service }
      }.compactMap { try? $0.service.typeName() })
    var records: [DNSRecord] = []
    var seen = Set<RecordKey>()
    for registration in withdrawn where registration.announced {
      for var record in serviceRecords(registration) {
        if record.name == Self.servicesName, case .ptr(let type) = record.rdata, remainingTypes.contains(type)
        {
          continue
        }
        guard seen.insert(RecordKey(record)).inserted else { continue }
        record.ttl = 0
        records.append(record)
      }
    }
    let messages = splitter.responses(
      DNSMessage(flags: .authoritativeResponse), answers: records, additionals: [])
    return interfaces.flatMap { interface in
      messages.map { .send($0, to: .multicast(interface: interface.index)) }
    }
  }

  /// The additional records an answer needs (RFC 6763 §12, RFC 6762 §6.2): SRV, TXT and
  /// addresses for a service PTR; addresses for an SRV; the other family for an address;
  /// and an NSEC for the host name when it lacks a family (RFC 6762 §6.1).
  func additionalRecords(for answers: [DNSRecord], on interface: MDNSInterface) -> [DNSRecord] {
    let inAnswers = Set(answers.map(RecordKey.init))
    var extra: [DNSRecord] = []
    var seen = inAnswers
    func add(_ records: [DNSRecord]) {
      for record in records where seen.insert(RecordKey(record)).inserted { extra.append(record) }
    }
    var needsHost = false
    for answer in answers {
      switch answer.rdata {
      case .ptr(let target) where answer.name != Self.servicesName:
        for id in registrations.keys.sorted() {
          let registration = registrations[id]!
          guard registration.state.isAnswerable, instanceFQDN(registration) == target else { continue }
          add(serviceRecords(registration).filter { $0.name == target })
          needsHost = true
        }
      case .srv(_, _, _, let target) where target == hostFQDN:
        needsHost = true
      case .a, .aaaa:
        if answer.name == hostFQDN { needsHost = true }
      default:
        break
      }
    }
    if needsHost, host.state.isAnswerable {
      add(hostRecords(on: interface))
      let types = Set(hostRecords(on: interface).map(\.type))
      if types.count < 2 {
        add([
          DNSRecord(
            name: hostFQDN, ttl: configuration.hostRecordTTL, rdata: .nsec(nextName: hostFQDN, types: types),
            cacheFlush: true)
        ])
      }
    }
    return extra
  }

  /// Responses carrying `answers` and what they need as additional records: one packet
  /// when it fits; else answers spread over several and additionals where room is left.
  func responses(_ answers: [DNSRecord], on interface: MDNSInterface) -> [DNSMessage] {
    splitter.responses(
      DNSMessage(flags: .authoritativeResponse), answers: answers,
      additionals: additionalRecords(for: answers, on: interface))
  }
}
