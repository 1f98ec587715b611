import SwitchboardTestSupport
import SwitchboardDNS
import SwitchboardIO
import Testing

@testable import SwitchboardDiscovery

/// The responder state machine on a manual clock: RFC 6762 §6–§10 and RFC 6763 §12 without
/// a socket.
@Suite(.onTestThreads) struct MDNSResponderTests {
  typealias H = ResponderHarness
  static let instance = "Chat Room._switchboard._tcp.local."

  // MARK: Probing and announcing (RFC 6762 §8)

  @Test func probesEachNameThreeTimes250msApartThenAnnouncesAtLeastTwice1sApart() throws {
    var h = H()
    let id = h.register("Chat Room")
    h.settle()
    let hostProbes = h.probes.filter { $0.message.questions.contains { $0.name == H.name("sbtest.local") } }
    let serviceProbes = h.probes.filter { $0.message.questions.contains { $0.name == H.name(Self.instance) } }
    #expect(hostProbes.count == 3)
    #expect(serviceProbes.count == 3)
    for probes in [hostProbes, serviceProbes] {
      for (a, b) in zip(probes, probes.dropFirst()) { #expect(b.at.milliseconds(since: a.at) == 250) }
    }
    for probe in h.probes {
      #expect(probe.message.questions.allSatisfy { $0.type == .any && !$0.unicastResponse })
      // §10.2: never cache-flush in a probe's proposed records.
      #expect(probe.message.authorities.allSatisfy { !$0.cacheFlush })
    }
    let service = try #require(serviceProbes.first).message.authorities
    #expect(Set(service.map(\.type)) == [.srv, .txt])

    let announcements = h.responses.filter { response in
      response.message.answers.contains { $0.type == .srv }
    }
    #expect(announcements.count >= 2)
    for (a, b) in zip(announcements, announcements.dropFirst()) {
      #expect(b.at.milliseconds(since: a.at) >= 1000)
    }
    let first = try #require(announcements.first)
    #expect(first.at > serviceProbes.last!.at)
    #expect(first.to == .multicast(interface: H.interface.index))
    #expect(first.message.flags == .authoritativeResponse)
    // §10.2: cache-flush on the unique records, never on a PTR.
    for record in first.message.answers {
      #expect(record.cacheFlush == (record.type != .ptr), "\(record)")
    }
    #expect(Set(first.message.answers.map(\.type)) == [.ptr, .srv, .txt, .a, .aaaa])
    #expect(first.message.answers.contains { $0.name == H.name("_services._dns-sd._udp.local") })
    #expect(h.log.contains { if case .registered(id, "Chat Room") = $0.action { true } else { false } })
    #expect(h.responder.isRegistered(id))
  }

  @Test func anEmptyTXTIsOneZeroByte() throws {
    var h = H()
    h.register("Chat Room")
    h.settle()
    let txt = try #require(h.responses.flatMap(\.message.answers).first { $0.type == .txt })
    #expect(MDNSProbeTiebreak.rawData(txt) == [0])
  }

  @Test func aServiceTypeOver15CharactersIsAcceptedWithOneWarning() throws {
    var h = H()
    h.register("a", "_networkplayground._udp")
    h.register("b", "_networkplayground._udp")
    let warnings = h.log.filter { if case .warning = $0.action { true } else { false } }
    #expect(warnings.count == 1)
    h.settle()
    #expect(
      h.responses.flatMap(\.message.answers).contains { $0.name == H.name("b._networkplayground._udp.local") }
    )
  }

  @Test(arguments: ["_switchboard", "switchboard._tcp", "_a._sctp", "_a._tcp._x", ""])
  func aTypeThatIsNotNameTcpOrUdpIsRefused(type: String) {
    var h = H()
    #expect(throws: DiscoveryError.invalidServiceType) {
      try h.responder.register(MDNSService(instance: "x", type: type, port: 1), now: h.now)
    }
  }

  // MARK: Conflicts (RFC 6762 §8.2, §9)

  static func conflictingSRV(_ name: String, port: UInt16 = 9999) -> DNSMessage {
    DNSMessage(
      flags: .authoritativeResponse,
      answers: [
        DNSRecord(
          name: H.name(name), ttl: 120,
          rdata: .srv(priority: 0, weight: 0, port: port, target: H.name("other.local")), cacheFlush: true)
      ])
  }

  @Test func aConflictWhileProbingRenamesTheInstance() throws {
    var h = H { $0.initialProbeDelay = .zero }
    let id = h.register("Chat Room")
    h.advance(by: .milliseconds(300))  // two probes out
    h.receive(Self.conflictingSRV(Self.instance))
    #expect(h.renames.map(\.2) == ["Chat Room (2)"])
    #expect(h.renames.first?.0 == id)
    h.settle()
    #expect(h.responder.instanceName(of: id) == "Chat Room (2)")
    #expect(
      h.responses.flatMap(\.message.answers).contains {
        $0.name == H.name("Chat Room (2)._switchboard._tcp.local")
      })
  }

  @Test func ourOwnRecordsLoopedBackAreNoConflict() throws {
    var h = H()
    let id = h.register("Chat Room")
    h.settle()
    for (_, message, _) in h.sent { h.receive(message) }
    h.settle()
    #expect(h.renames.isEmpty)
    #expect(h.responder.instanceName(of: id) == "Chat Room")
  }

  @Test func renamingStopsAtTheLimit() throws {
    var h = H { $0.maxRenames = 4 }
    let id = h.register("Chat Room")
    h.advance(by: .seconds(1))
    for _ in 0..<20 {
      let current = h.responder.instanceName(of: id) ?? "Chat Room"
      h.receive(Self.conflictingSRV(current + "._switchboard._tcp.local."))
      h.advance(by: .milliseconds(300))
    }
    #expect(h.renames.map(\.2) == ["Chat Room (2)", "Chat Room (3)", "Chat Room (4)", "Chat Room (5)"])
    #expect(h.log.contains { if case .failed(id, .nameConflict) = $0.action { true } else { false } })
    #expect(!h.responder.isRegistered(id))
    h.clear()
    h.settle()
    #expect(!h.sent.contains { $0.message.answers.contains { $0.type == .srv } })
  }

  @Test func aHostNameConflictRenamesTheHostAndTheSRVFollows() throws {
    var h = H()
    h.register("Chat Room")
    h.advance(by: .milliseconds(300))
    h.receive(
      DNSMessage(
        flags: .authoritativeResponse,
        answers: [
          DNSRecord(
            name: H.name("sbtest.local"), ttl: 120, rdata: .a(DNSIPv4Address(10, 9, 8, 2)), cacheFlush: true)
        ]))
    #expect(h.renames.count == 1)
    #expect(h.renames.first?.0 == nil)
    #expect(h.renames.first?.2 == "sbtest-2")
    h.settle()
    #expect(h.responder.hostName == "sbtest-2")
    let srv = try #require(h.responses.flatMap(\.message.answers).first { $0.type == .srv })
    guard case .srv(_, _, _, let target) = srv.rdata else { return }
    #expect(target == H.name("sbtest-2.local"))
  }

  /// Our latest probe for the instance, and the same probe with another SRV port (a rival's).
  static func ourProbeAndTheirs(in h: H, port: UInt16) throws -> (
    (at: Deadline, message: DNSMessage), DNSMessage
  ) {
    let probe = try #require(
      h.probes.last { $0.message.questions.contains { $0.name == H.name(Self.instance) } })
    var theirs = probe.message
    theirs.authorities = theirs.authorities.map { record in
      var record = record
      if case .srv(let p, let w, _, let t) = record.rdata {
        record.rdata = .srv(priority: p, weight: w, port: port, target: t)
      }
      return record
    }
    return (probe, theirs)
  }

  /// §8.2: simultaneous probes compare the proposed records; the lexicographically later
  /// set wins, the loser waits one second and probes again.
  @Test func aSimultaneousProbeWithLaterRecordsMakesUsWaitASecond() throws {
    var h = H { $0.initialProbeDelay = .zero }
    h.register("Chat Room", port: 7000)
    h.advance(by: .milliseconds(300))
    var (_, theirs) = try Self.ourProbeAndTheirs(in: h, port: 8000)
    theirs.questions = theirs.questions.filter { $0.name == H.name(Self.instance) }
    theirs.authorities = theirs.authorities.filter { $0.name == H.name(Self.instance) }
    let before = h.now
    h.clear()
    h.receive(theirs)
    h.advance(by: .milliseconds(900))
    #expect(!h.probes.contains { $0.message.questions.contains { $0.name == H.name(Self.instance) } })
    h.advance(by: .milliseconds(200))
    let again = try #require(
      h.probes.first { $0.message.questions.contains { $0.name == H.name(Self.instance) } })
    #expect(again.at.milliseconds(since: before) == 1000)
    #expect(h.renames.isEmpty)
  }

  @Test func aSimultaneousProbeWithEarlierRecordsIsIgnored() throws {
    var h = H { $0.initialProbeDelay = .zero }
    h.register("Chat Room", port: 7000)
    h.advance(by: .milliseconds(300))
    let (probe, theirs) = try Self.ourProbeAndTheirs(in: h, port: 6000)
    func serviceProbes() -> [Deadline] {
      h.probes.filter { $0.message.questions.contains { $0.name == H.name(Self.instance) } }.map(\.at)
    }
    let before = serviceProbes()
    h.receive(theirs)
    h.receive(probe.message)  // our own, looped back: a tie
    h.advance(by: .milliseconds(600))
    #expect(before.count == 2)
    #expect(serviceProbes().count == 3)  // the third, on schedule
    #expect(serviceProbes().last.map { $0.milliseconds(since: before[0]) } == 500)
    h.settle()
    #expect(h.responses.contains { $0.message.answers.contains { $0.type == .srv } })
  }

  @Test func tiebreakOrderIsClassThenTypeThenRawData() {
    let name = H.name("x.local")
    let a1 = DNSRecord(name: name, ttl: 120, rdata: .a(DNSIPv4Address(10, 0, 0, 1)))
    let a2 = DNSRecord(name: name, ttl: 120, rdata: .a(DNSIPv4Address(10, 0, 0, 2)))
    let aaaa = DNSRecord(name: name, ttl: 120, rdata: .aaaa(DNSIPv6Address("fe80::1")!))
    #expect(MDNSProbeTiebreak.compare(ours: [a1], theirs: [a2]) == .lost)
    #expect(MDNSProbeTiebreak.compare(ours: [a2], theirs: [a1]) == .won)
    #expect(MDNSProbeTiebreak.compare(ours: [aaaa], theirs: [a2]) == .won)  // type 28 > 1
    #expect(MDNSProbeTiebreak.compare(ours: [a1, a2], theirs: [a2, a1]) == .tie)
    #expect(MDNSProbeTiebreak.compare(ours: [a1], theirs: [a1, a2]) == .lost)
  }

  // MARK: Answering (RFC 6762 §6, RFC 6763 §12)

  @Test func aPTRQuestionIsAnsweredAfter20To120msWithSRVTXTAndAddresses() throws {
    var h = H()
    h.register("Chat Room", txt: ["version=1"])
    h.settle()
    h.clear()
    h.receive(H.query("_switchboard._tcp.local.", .ptr))
    #expect(h.responses.isEmpty)
    let asked = h.now
    h.advance(by: .milliseconds(121))
    let answer = try #require(h.responses.first)
    let delay = answer.at.milliseconds(since: asked)
    #expect((20...120).contains(delay))
    #expect(answer.to == .multicast(interface: H.interface.index))
    #expect(answer.message.answers.map(\.type) == [.ptr])
    #expect(!answer.message.answers[0].cacheFlush)
    #expect(Set(answer.message.additionals.map(\.type)) == [.srv, .txt, .a, .aaaa])
    #expect(answer.message.questions.isEmpty && answer.message.id == 0)
  }

  @Test func anSRVQuestionIsAnsweredAtOnceWithTheAddresses() throws {
    var h = H()
    h.register("Chat Room")
    h.settle()
    h.clear()
    h.receive(H.query(Self.instance, .srv))
    let answer = try #require(h.responses.first)
    #expect(answer.at == h.now)
    #expect(answer.message.answers.map(\.type) == [.srv])
    #expect(Set(answer.message.additionals.map(\.type)) == [.a, .aaaa])
  }

  @Test func anAQuestionGetsTheAAAAAsAdditionalAndAnNSECWhenAFamilyIsMissing() throws {
    var h = H()
    h.settle()
    h.clear()
    h.receive(H.query("sbtest.local.", .a))
    let answer = try #require(h.responses.first)
    #expect(answer.message.answers.map(\.rdata) == [.a(DNSIPv4Address(10, 9, 8, 1))])
    #expect(answer.message.additionals.map(\.type) == [.aaaa])

    var v4only = H {
      $0.interfaces = [
        MDNSInterface(
          index: 7, name: "v", ipv4: [DNSIPv4Address(10, 9, 8, 1)], subnets: H.interface.subnets)
      ]
    }
    v4only.settle()
    v4only.clear()
    v4only.receive(H.query("sbtest.local.", .a))
    let nsec = try #require(v4only.responses.first?.message.additionals.first)
    #expect(nsec.rdata == .nsec(nextName: H.name("sbtest.local"), types: [.a]))
  }

  @Test func theServicesEnumerationListsEachTypeOnce() throws {
    var h = H()
    h.register("a")
    h.register("b")
    h.register("c", "_http._tcp")
    h.settle()
    h.clear()
    h.receive(H.query("_services._dns-sd._udp.local.", .ptr))
    h.advance(by: .milliseconds(121))
    let answer = try #require(h.responses.first)
    #expect(
      Set(answer.message.answers.map(\.rdata)) == [
        .ptr(H.name("_switchboard._tcp.local")), .ptr(H.name("_http._tcp.local")),
      ])
    #expect(answer.message.answers.count == 2)
  }

  @Test func nothingIsAnsweredBeforeTheNameIsWon() {
    var h = H()
    h.register("Chat Room")
    h.advance(by: .milliseconds(100))
    h.clear()
    h.receive(H.query(Self.instance, .srv))
    h.advance(by: .milliseconds(130))
    #expect(h.responses.isEmpty)
  }

  @Test func aQUQuestionIsAnsweredByUnicastOnlyWhenTheRecordWasMulticastRecently() throws {
    var h = H()
    h.register("Chat Room")
    h.settle()
    h.clear()
    // SRV (TTL 120) was announced within the last 30 s: unicast.
    h.receive(H.query(Self.instance, .srv, qu: true))
    #expect(h.responses.map(\.to) == [.unicast(H.peer, interface: H.interface.index)])
    h.clear()
    h.advance(by: .seconds(40))
    // Now it has not been multicast within a quarter of its TTL: multicast instead.
    h.receive(H.query(Self.instance, .srv, qu: true))
    #expect(h.responses.map(\.to) == [.multicast(interface: H.interface.index)])
  }

  @Test func aLegacyUnicastQueryGetsItsIdAndQuestionBackWithShortTTLsAndNoCacheFlush() throws {
    var h = H()
    h.register("Chat Room")
    h.settle()
    h.clear()
    let asker = try SocketAddress(host: "10.9.8.2", port: 40123)
    let query = H.query(Self.instance, .srv, id: 0xBEEF)
    h.receive(query, from: asker)
    let reply = try #require(h.responses.first)
    #expect(reply.to == .unicast(asker, interface: H.interface.index))
    #expect(reply.message.id == 0xBEEF)
    #expect(reply.message.questions == query.questions)
    let all = reply.message.answers + reply.message.additionals
    #expect(!all.isEmpty)
    #expect(all.allSatisfy { $0.ttl <= 10 && !$0.cacheFlush })
    #expect(h.responses.count == 1)  // no multicast for it
  }

  @Test func aKnownAnswerWithHalfItsTTLLeftSuppressesTheAnswer() throws {
    var h = H()
    h.register("Chat Room")
    h.settle()
    let ptr = DNSRecord(
      name: H.name("_switchboard._tcp.local"), ttl: 4000, rdata: .ptr(H.name(Self.instance)))
    h.advance(by: .seconds(2))
    h.clear()
    h.receive(H.query("_switchboard._tcp.local.", .ptr, known: [ptr]))
    h.advance(by: .milliseconds(200))
    #expect(h.responses.isEmpty)
    var stale = ptr
    stale.ttl = 2000  // less than half of 4500
    h.receive(H.query("_switchboard._tcp.local.", .ptr, known: [stale]))
    h.advance(by: .milliseconds(200))
    #expect(h.responses.count == 1)
  }

  @Test func anAnswerSomeoneElseMulticastFirstIsNotRepeated() throws {
    var h = H()
    h.register("Chat Room")
    h.settle()
    h.advance(by: .seconds(2))
    h.clear()
    h.receive(H.query("_switchboard._tcp.local.", .ptr))
    let ptr = DNSRecord(
      name: H.name("_switchboard._tcp.local"), ttl: 4500, rdata: .ptr(H.name(Self.instance)))
    h.receive(
      DNSMessage(flags: .authoritativeResponse, answers: [ptr]),
      from: try SocketAddress(host: "10.9.8.3", port: 5353))
    h.advance(by: .milliseconds(200))
    #expect(h.responses.isEmpty)
  }

  @Test func aRecordIsMulticastAtMostOncePerSecond() throws {
    var h = H()
    h.register("Chat Room")
    h.settle()
    h.advance(by: .seconds(2))
    h.clear()
    h.receive(H.query(Self.instance, .srv))
    h.advance(by: .milliseconds(100))
    h.receive(H.query(Self.instance, .srv))
    h.advance(by: .seconds(2))
    let times = h.responses.map(\.at)
    #expect(times.count == 2)
    #expect(times[1].milliseconds(since: times[0]) == 1000)
  }

  @Test func aProbeForAnEstablishedNameIsDefendedAtOnce() throws {
    var h = H()
    h.register("Chat Room")
    h.settle()
    h.advance(by: .seconds(2))
    h.clear()
    var probe = H.query(Self.instance, .any)
    probe.authorities = [
      DNSRecord(
        name: H.name(Self.instance), ttl: 120,
        rdata: .srv(priority: 0, weight: 0, port: 1, target: H.name("x.local")))
    ]
    h.receive(probe)
    let defense = try #require(h.responses.first)
    #expect(defense.at == h.now)
    #expect(defense.to == .multicast(interface: H.interface.index))
    #expect(Set(defense.message.answers.map(\.type)) == [.srv, .txt])
  }

  @Test func responsesFromAPortOtherThan5353AndOtherOpcodesAreIgnored() throws {
    var h = H()
    h.register("Chat Room")
    h.advance(by: .seconds(1))
    h.receive(Self.conflictingSRV(Self.instance), from: try SocketAddress(host: "10.9.8.2", port: 5354))
    var update = H.query(Self.instance, .srv)
    update.flags.opcode = 5
    h.receive(update)
    #expect(h.renames.isEmpty)
  }

  // MARK: Goodbyes (RFC 6762 §10.1)

  @Test func unregisterSendsGoodbyesForTheServiceButNotTheHost() throws {
    var h = H()
    let id = h.register("Chat Room")
    h.register("Other")
    h.settle()
    h.clear()
    h.take(h.responder.unregister(id, now: h.now))
    let bye = try #require(h.responses.first)
    #expect(bye.message.answers.allSatisfy { $0.ttl == 0 })
    #expect(Set(bye.message.answers.map(\.type)) == [.ptr, .srv, .txt])
    // "Other" still has the type: the enumeration PTR stays.
    #expect(!bye.message.answers.contains { $0.name == H.name("_services._dns-sd._udp.local") })
    h.clear()
    h.take(h.responder.shutdown(now: h.now))
    let last = try #require(h.responses.first)
    #expect(last.message.answers.allSatisfy { $0.ttl == 0 })
    #expect(last.message.answers.contains { $0.name == H.name("_services._dns-sd._udp.local") })
    #expect(!last.message.answers.contains { $0.type == .a || $0.type == .aaaa })
    h.clear()
    h.receive(H.query(Self.instance, .srv))
    h.advance(by: .seconds(1))
    #expect(h.sent.isEmpty)
  }

  @Test func aServiceWithdrawnBeforeItWasAnnouncedSendsNoGoodbye() {
    var h = H()
    let id = h.register("Chat Room")
    h.advance(by: .milliseconds(100))
    h.clear()
    h.take(h.responder.unregister(id, now: h.now))
    #expect(h.sent.isEmpty)
  }

  @Test func aNewInterfaceGetsTheAnnouncementsAgain() throws {
    var h = H()
    h.register("Chat Room")
    h.settle()
    h.clear()
    let second = MDNSInterface(index: 9, name: "veth-2", ipv4: [DNSIPv4Address(10, 7, 0, 1)])
    h.take(h.responder.updateInterfaces([H.interface, second], now: h.now))
    h.settle()
    #expect(
      h.responses.contains {
        $0.to == .multicast(interface: 9) && $0.message.answers.contains { $0.type == .srv }
      })
    let a = h.responses.first { $0.to == .multicast(interface: 9) }?.message.answers.first { $0.type == .a }
    #expect(a?.rdata == .a(DNSIPv4Address(10, 7, 0, 1)))
  }

  @Test func namesAreNumberedWithinOneLabel() {
    #expect(MDNSResponder.numbered("Chat", 2, separator: " (") == "Chat (2)")
    #expect(MDNSResponder.numbered("vm", 3, separator: "-") == "vm-3")
    let long = String(repeating: "x", count: 63)
    #expect(MDNSResponder.numbered(long, 12, separator: " (").utf8.count == 63)
  }
}
