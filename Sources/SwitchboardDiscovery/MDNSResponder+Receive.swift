import SwitchboardDNS
import SwitchboardIO

/// Received messages: queries answered, probes tiebroken, responses checked for conflicts.
extension MDNSResponder {
  /// The mDNS port; a query from any other port is a legacy unicast query (RFC 6762 §6.7).
  static let port = 5353

  /// A message arrived from `source` on the interface with index `interface`.
  public mutating func receive(
    _ message: DNSMessage, from source: SocketAddress, interface index: UInt32, now: Deadline
  ) -> [MDNSResponderAction] {
    guard lifecycle == .running, let interface = interfaces.first(where: { $0.index == index }) else {
      return []
    }
    // RFC 6762 §18.3, §18.11: other opcodes and non-zero rcodes are silently ignored.
    guard message.flags.opcode == 0, message.flags.responseCode == 0 else { return [] }
    var actions: [MDNSResponderAction] = []
    if message.flags.isResponse {
      // §11: responses not from port 5353 are ignored.
      guard source.port == Self.port else { return [] }
      handleResponse(message, on: interface, now: now, actions: &actions)
    } else {
      handleQuery(message, from: source, on: interface, now: now, actions: &actions)
    }
    actions += sendDueAnswers(now: now)
    actions += scheduleIfNeeded()
    return actions
  }

  private mutating func handleQuery(
    _ query: DNSMessage, from source: SocketAddress, on interface: MDNSInterface, now: Deadline,
    actions: inout [MDNSResponderAction]
  ) {
    // §5.5, §11: a query from a source outside the link it came in on is ignored whole, so
    // nothing about this host reaches (or is reflected towards) another network.
    guard MDNSSourceVerdict.of(source, on: interface) == .onLink else {
      counts.offLinkQueriesIgnored += 1
      return
    }
    if !query.authorities.isEmpty { tiebreak(query, on: interface, now: now) }
    if source.port != Self.port {
      guard let reply = legacyReply(to: query, on: interface) else { return }
      guard legacyRateLimit.allow(source.addressBytes, now: now) else {
        counts.legacyQueriesRateLimited += 1
        return
      }
      counts.legacyQueriesAnswered += 1
      actions.append(.send(reply, to: .unicast(source, interface: interface.index)))
      return
    }
    // §7.2: TC means more known answers follow from the same querier. Collect them for
    // 400–500 ms, then answer once with suppression from every packet.
    let key = MDNSDeferredQuery.Source(address: source, interface: interface.index)
    if deferred[key]?.absorb(query) != nil { return }
    if query.flags.isTruncated, deferred.count < configuration.maxDeferredQueries {
      let wait = Duration.milliseconds(Int.random(in: configuration.knownAnswerWait, using: &random))
      deferred[key] = MDNSDeferredQuery(
        query, due: now.adding(wait), maxRecords: configuration.maxDeferredRecords)
      return
    }
    answer(query, from: source, on: interface, now: now, waited: false, actions: &actions)
  }

  /// Answers the TC queries whose wait is over.
  mutating func answerDeferredQueries(now: Deadline, actions: inout [MDNSResponderAction]) {
    let due = deferred.filter { $0.value.due <= now }.sorted {
      ($0.value.due, $0.key.address.description) < ($1.value.due, $1.key.address.description)
    }
    for (key, held) in due {
      deferred[key] = nil
      guard let interface = interfaces.first(where: { $0.index == key.interface }) else { continue }
      answer(held.query, from: key.address, on: interface, now: now, waited: true, actions: &actions)
    }
  }

  /// Answers a query's questions from port 5353 (one packet, or a TC series merged, which
  /// has `waited` already and gets no further delay).
  private mutating func answer(
    _ query: DNSMessage, from source: SocketAddress, on interface: MDNSInterface, now: Deadline, waited: Bool,
    actions: inout [MDNSResponderAction]
  ) {
    var unicast: [DNSRecord] = []
    for question in query.questions {
      let matches = records(answering: question, on: interface)
      // §7.1: a known answer with at least half our TTL left needs no answer.
      let needed = matches.filter { record in
        !query.answers.contains {
          $0.name == record.name && $0.rdata == record.rdata && $0.ttl >= record.ttl / 2
        }
      }
      guard !needed.isEmpty else { continue }
      let isProbe = query.authorities.contains { $0.name == question.name }
      // §6: answers that are all unique go at once; shared ones wait 20–120 ms so that
      // several responders' answers can suppress each other.
      let delay: Duration =
        waited || isProbe || needed.allSatisfy(\.cacheFlush)
        ? .zero : .milliseconds(Int.random(in: configuration.sharedAnswerDelay, using: &random))
      let limit = isProbe ? configuration.probeDefenseRateLimit : configuration.rateLimit
      for record in needed {
        // §5.4: a QU question gets a unicast answer only when the record was multicast
        // within a quarter of its TTL; otherwise multicast keeps every cache fresh.
        if question.unicastResponse, !isProbe,
          let last = lastMulticast[MulticastKey(record: RecordKey(record), interface: interface.index)],
          now.nanoseconds - last.nanoseconds < UInt64(record.ttl) * 250_000_000
        {
          if !unicast.contains(where: { RecordKey($0) == RecordKey(record) }) { unicast.append(record) }
          continue
        }
        var due = now.adding(delay)
        if let last = lastMulticast[MulticastKey(record: RecordKey(record), interface: interface.index)] {
          due = max(due, last.adding(limit))
        }
        enqueue(record, on: interface.index, due: due)
      }
    }
    for message in unicast.isEmpty ? [] : responses(unicast, on: interface) {
      actions.append(.send(message, to: .unicast(source, interface: interface.index)))
    }
  }

  /// §6.7: the question and id echoed, TTLs at most 10 s, no cache-flush bits. One packet:
  /// a legacy resolver reads one reply, so answers that do not fit are left out and TC set
  /// (RFC 1035 §4.1.1), additionals only where they fit.
  private func legacyReply(to query: DNSMessage, on interface: MDNSInterface) -> DNSMessage? {
    var answers: [DNSRecord] = []
    for question in query.questions {
      for record in records(answering: question, on: interface)
      where !answers.contains(where: { RecordKey($0) == RecordKey(record) }) {
        answers.append(record)
      }
    }
    guard !answers.isEmpty else { return nil }
    func legacy(_ record: DNSRecord) -> DNSRecord {
      var record = record
      record.ttl = min(record.ttl, configuration.legacyUnicastTTL)
      record.cacheFlush = false
      return record
    }
    let packets = splitter.responses(
      DNSMessage(id: query.id, flags: .authoritativeResponse, questions: query.questions),
      answers: answers.map(legacy), additionals: additionalRecords(for: answers, on: interface).map(legacy))
    guard var reply = packets.first else { return nil }
    reply.flags.isTruncated = packets.count > 1
    return reply
  }

  /// §8.2: another host probes for a name we are probing too.
  private mutating func tiebreak(_ probe: DNSMessage, on interface: MDNSInterface, now: Deadline) {
    let owners = [Owner.host] + registrations.keys.sorted().map { Owner.service($0) }
    for owner in owners where state(of: owner)?.isProbing == true {
      guard let name = name(of: owner) else { continue }
      let theirs = probe.authorities.filter { $0.name == name }
      guard !theirs.isEmpty else { continue }
      switch MDNSProbeTiebreak.compare(ours: proposedRecords(owner, on: interface), theirs: theirs) {
      case .won, .tie:
        continue
      case .lost:
        move(owner, to: .probing(sent: 0, next: now.adding(configuration.tiebreakDelay)))
      }
    }
  }

  private mutating func handleResponse(
    _ response: DNSMessage, on interface: MDNSInterface, now: Deadline, actions: inout [MDNSResponderAction]
  ) {
    var conflicting: [Owner] = []
    let ownAddresses = Set(interfaces.flatMap { hostRecords(on: $0).map(\.rdata) })
    for record in response.answers + response.additionals where record.ttl > 0 {
      if record.name == hostFQDN, record.type == .a || record.type == .aaaa,
        !ownAddresses.contains(record.rdata),
        !conflicting.contains(.host)
      {
        conflicting.append(.host)
      }
      guard record.type == .srv || record.type == .txt else { continue }
      for id in registrations.keys.sorted() where !conflicting.contains(.service(id)) {
        guard let registration = registrations[id], registration.state != .failed, instanceFQDN(registration) == record.name else { continue }
        let ours = serviceRecords(registration).filter { $0.type == record.type }.map(\.rdata)
        if !ours.contains(record.rdata) { conflicting.append(.service(id)) }
      }
    }
    for owner in conflicting { conflict(owner, now: now, actions: &actions) }
    // §7.4: another responder multicast what we were about to: ours is not needed.
    for record in response.answers {
      pending[interface.index]?.removeAll {
        RecordKey($0.record) == RecordKey(record) && record.ttl >= $0.record.ttl / 2
      }
    }
  }

  mutating func enqueue(_ record: DNSRecord, on interface: UInt32, due: Deadline) {
    var answers = pending[interface] ?? []
    if let index = answers.firstIndex(where: { RecordKey($0.record) == RecordKey(record) }) {
      answers[index].due = min(answers[index].due, due)
    } else {
      answers.append(PendingAnswer(record: record, due: due))
    }
    pending[interface] = answers
  }

  /// Multicasts, per interface, the pending answers that are due, in one response each.
  mutating func sendDueAnswers(now: Deadline) -> [MDNSResponderAction] {
    var actions: [MDNSResponderAction] = []
    for interface in interfaces {
      guard let answers = pending[interface.index], answers.contains(where: { $0.due <= now }) else {
        continue
      }
      let due = answers.filter { $0.due <= now }.map(\.record)
      let later = answers.filter { $0.due > now }
      pending[interface.index] = later.isEmpty ? nil : later
      for record in due { noteMulticast(record, on: interface.index, now: now) }
      for message in responses(due, on: interface) {
        actions.append(.send(message, to: .multicast(interface: interface.index)))
      }
    }
    return actions
  }
}
