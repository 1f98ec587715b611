import SwitchboardDNS
import SwitchboardIO
import SwitchboardTestSupport
import Testing

@testable import SwitchboardDiscovery

/// The responder when one packet is not enough: known answers over several packets (TC,
/// RFC 6762 §7.2), responses split to the packet size (§17), and the probe pause after many
/// conflicts (§8.1). Every message the harness sees is also checked to be within
/// `maxMessageSize` unless it holds a single record.
@Suite(.onTestThreads) struct MDNSResponderPacketTests {
  typealias H = ResponderHarness
  static let type = H.name("_switchboard._tcp.local")

  static func ptr(_ instance: String, ttl: UInt32 = 4500) -> DNSRecord {
    DNSRecord(name: type, ttl: ttl, rdata: .ptr(H.name("\(instance)._switchboard._tcp.local")))
  }

  /// A settled responder with `count` services `svc-0`… (or `PREFIX0`…) of `_switchboard._tcp`.
  static func responder(services count: Int, txt: [String] = [], prefix: String = "svc-") -> H {
    var h = H()
    for i in 0..<count { h.register("\(prefix)\(i)", port: UInt16(7000 + i), txt: txt) }
    h.settle()
    h.advance(by: .seconds(2))
    h.clear()
    return h
  }

  static func ptrTargets(_ messages: [DNSMessage]) -> [DNSName] {
    messages.flatMap(\.answers).compactMap { record in
      if case .ptr(let target) = record.rdata, record.name == type { return target }
      return nil
    }
  }

  // MARK: Known answers over several packets (§7.2)

  @Test func aTCQueryWaits400To500msAndSuppressesKnownAnswersFromEveryPacketOfTheQuerier() throws {
    var h = Self.responder(services: 3)
    var first = H.query("_switchboard._tcp.local.", .ptr, known: [Self.ptr("svc-0")])
    first.flags.isTruncated = true
    h.receive(first)
    var second = DNSMessage(answers: [Self.ptr("svc-1")])
    second.flags.isTruncated = true
    h.receive(second)
    // Another querier's packet is not part of the series: it suppresses nothing.
    h.receive(DNSMessage(answers: [Self.ptr("svc-2")]), from: try SocketAddress(host: "10.9.8.3", port: 5353))
    let asked = h.now
    h.advance(by: .milliseconds(399))
    #expect(h.responses.isEmpty)
    h.advance(by: .milliseconds(101))
    let answer = try #require(h.responses.first)
    #expect((400...500).contains(answer.at.milliseconds(since: asked)))
    #expect(Self.ptrTargets(h.responses.map(\.message)) == [H.name("svc-2._switchboard._tcp.local")])
    #expect(answer.to == .multicast(interface: H.interface.index))
  }

  /// Runs a browser and a responder side by side for `seconds`, in 50 ms steps, each
  /// receiving what the other sent.
  static func exchange(_ h: inout H, _ d: inout MDNSBrowserTests.Driver, seconds: Int) {
    var toResponder = d.sent.count
    var toBrowser = h.sent.count
    for _ in 0..<(seconds * 20) {
      d.advance(by: .milliseconds(50))
      h.advance(by: .milliseconds(50))
      let queries = d.sent[toResponder...].map(\.message)
      toResponder = d.sent.count
      for query in queries { h.receive(query) }
      let responses = h.sent[toBrowser...].map(\.message)
      toBrowser = h.sent.count
      for response in responses {
        d.take(d.browser.receive(response, from: H.peer, interface: H.interface.index, now: d.now))
      }
    }
  }

  @Test func theBrowsersSplitKnownAnswersSuppressEveryAnswerAndALostPacketGetsOnlyItsOwnBack() throws {
    var h = Self.responder(services: 40)
    var d = MDNSBrowserTests.Driver()
    d.browser.maxMessageSize = 512  // 40 known answers take ~900 bytes
    Self.exchange(&h, &d, seconds: 4)
    #expect(d.events.count == 40)
    #expect(d.sent.contains { $0.message.flags.isTruncated })  // its own queries went as series
    let series = d.browser.query(d.browser.queries[0], on: H.interface.index, now: d.now)
    #expect(series.count >= 2)
    #expect(series[0].questions.count == 1 && series.dropFirst().allSatisfy(\.questions.isEmpty))
    #expect(series.dropLast().allSatisfy(\.flags.isTruncated) && !series.last!.flags.isTruncated)
    #expect(series.flatMap(\.answers).count == 40)
    #expect(series.allSatisfy { $0.encode().count <= 512 })

    h.clear()
    for query in series { h.receive(query) }
    h.advance(by: .seconds(1))
    #expect(h.responses.isEmpty)

    h.advance(by: .seconds(2))
    h.clear()
    for query in series.dropLast() { h.receive(query) }
    h.advance(by: .seconds(1))
    let lost = Set(series.last!.answers.map(\.rdata))
    #expect(Set(Self.ptrTargets(h.responses.map(\.message)).map { DNSRecordData.ptr($0) }) == lost)
  }

  @Test func heldTCQueriesAreBoundedAndTheRestAreAnsweredAtOnce() throws {
    var h = Self.responder(services: 1)
    var query = H.query("svc-0._switchboard._tcp.local.", .srv)
    query.flags.isTruncated = true
    for i in 0..<33 {
      h.receive(query, from: try SocketAddress(host: "10.9.8.\(10 + i)", port: 5353))
    }
    #expect(h.responder.deferred.count == 32)
    // The 33rd querier was not held: its unique answer went at once.
    #expect(h.responses.count == 1 && h.responses[0].at == h.now)
  }

  // MARK: Splitting oversized responses (§17)

  @Test func aResponseTooBigForOnePacketIsSplitWithEveryAnswerAndAdditionalsWhereTheyFit() throws {
    let txt = [String(repeating: "t", count: 60), "version=1", "room=lobby"]
    let prefix = "Switchboard chat room "  // long names: 45 PTRs need more than one packet
    var h = Self.responder(services: 45, txt: txt, prefix: prefix)
    h.receive(H.query("_switchboard._tcp.local.", .ptr))
    h.advance(by: .milliseconds(121))
    let packets = h.responses.map(\.message)
    #expect(packets.count >= 2)
    #expect(Set(h.responses.map(\.at)).count == 1)
    // Every answer once, in order: answers fill the packets first.
    #expect(Self.ptrTargets(packets) == (0..<45).map { H.name("\(prefix)\($0)._switchboard._tcp.local") })
    #expect(packets.allSatisfy { $0.encode().count <= MDNSPacketSplitter.defaultLimit })
    #expect(packets.allSatisfy { !$0.flags.isTruncated })  // §18.5: never TC in a multicast response
    let additionals = packets.flatMap(\.additionals)
    #expect(!additionals.isEmpty && additionals.count < 45 * 2 + 2)  // some fit, not all
    #expect(Set(additionals.map(MDNSResponder.RecordKey.init)).count == additionals.count)
    #expect(packets.allSatisfy { !$0.answers.isEmpty })  // no packet of additionals alone
  }

  @Test func manyServicesAreAnnouncedProbedAndSaidGoodbyeToInPacketsThatFit() throws {
    var h = H()
    let txt = [String(repeating: "x", count: 200)]
    for i in 0..<30 { h.register("svc-\(i)", port: UInt16(7000 + i), txt: txt) }
    h.settle()
    let probes = h.probes.map(\.message)
    #expect(probes.count > 3)
    for probe in probes {
      // Each name's question and proposed records share a packet.
      #expect(Set(probe.authorities.map(\.name)) == Set(probe.questions.map(\.name)))
    }
    let announced = Set(h.responses.flatMap(\.message.answers).filter { $0.type == .srv }.map(\.name))
    #expect(announced.count == 30)
    h.clear()
    h.take(h.responder.shutdown(now: h.now))
    let goodbyes = h.responses.map(\.message)
    #expect(goodbyes.count > 1)
    #expect(goodbyes.flatMap(\.answers).filter { $0.type == .txt }.count == 30)
    #expect(goodbyes.flatMap(\.answers).allSatisfy { $0.ttl == 0 })
  }

  @Test func aTXTBiggerThanAPacketGoesAloneAndOneTooBigForAnyPacketIsRefused() throws {
    var h = H()
    let big = (0..<8).map { "k\($0)=" + String(repeating: "v", count: 240) }  // ~2 KB
    h.register("big", txt: big)
    h.settle()
    let txt = try #require(h.responses.first { $0.message.answers.contains { $0.type == .txt } })
    #expect(txt.message.answers.count == 1 && txt.message.additionals.isEmpty)
    #expect(txt.message.encode().count > MDNSPacketSplitter.defaultLimit)
    #expect(h.responses.contains { $0.message.answers.contains { $0.type == .srv } })

    let huge = (0..<40).map { "k\($0)=" + String(repeating: "v", count: 240) }  // ~10 KB
    #expect(throws: DiscoveryError.invalidTXT) {
      try h.responder.register(
        MDNSService(instance: "huge", type: "_switchboard._tcp", port: 1, txt: try DNSTXT(strings: huge)),
        now: h.now)
    }
  }

  @Test func aLegacyQueryGetsOnePacketWithTCWhenTheAnswersDoNotFit() throws {
    var h = Self.responder(services: 45, prefix: "Switchboard chat room ")
    let asker = try SocketAddress(host: "10.9.8.2", port: 40123)
    h.receive(H.query("_switchboard._tcp.local.", .ptr, id: 0x1234), from: asker)
    #expect(h.responses.count == 1)
    let reply = try #require(h.responses.first)
    #expect(reply.message.id == 0x1234 && reply.message.flags.isTruncated)
    #expect(reply.message.encode().count <= MDNSPacketSplitter.defaultLimit)
    #expect(reply.message.answers.count < 45)
  }

  // MARK: Probe rate limiting (§8.1)

  @Test func afterFifteenConflictsInTenSecondsEachProbingWaitsFiveSeconds() throws {
    var h = H {
      $0.initialProbeDelay = .zero
      $0.maxRenames = 30
    }
    let id = h.register("Chat Room")
    h.advance(by: .milliseconds(10))
    /// Sends a conflict for the current name; returns how long until the renamed one is probed.
    func conflictThenWait() -> Int64? {
      let current = h.responder.instanceName(of: id)!
      h.receive(MDNSResponderTests.conflictingSRV(current + "._switchboard._tcp.local."))
      let renamed = H.name(h.responder.instanceName(of: id)! + "._switchboard._tcp.local.")
      let at = h.now
      h.advance(by: .milliseconds(5100))
      let probe = h.probes.first { $0.at >= at && $0.message.questions.contains { $0.name == renamed } }
      return probe.map { $0.at.milliseconds(since: at) }
    }
    // Fourteen conflicts 100 ms apart: each new name is probed at once.
    for _ in 0..<14 {
      let current = h.responder.instanceName(of: id)!
      let at = h.now
      h.receive(MDNSResponderTests.conflictingSRV(current + "._switchboard._tcp.local."))
      let renamed = H.name(h.responder.instanceName(of: id)! + "._switchboard._tcp.local.")
      h.advance(by: .milliseconds(100))
      #expect(h.probes.contains { $0.at == at && $0.message.questions.contains { $0.name == renamed } })
    }
    // The fifteenth within ten seconds, and the next one: five seconds each.
    #expect(conflictThenWait() == 5000)
    #expect(conflictThenWait() == 5000)
    // Ten quiet seconds later the window holds fewer than fifteen: at once again.
    h.advance(by: .seconds(11))
    #expect(conflictThenWait() == 0)
    // The last conflict hit an established name: probed again, not renamed (§9).
    #expect(h.renames.count == 16)
  }
}
