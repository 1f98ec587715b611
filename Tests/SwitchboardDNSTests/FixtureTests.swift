import SwitchboardTestSupport
import Testing

@testable import SwitchboardDNS

/// Packets captured from avahi 0.8 and python-zeroconf 0.154 (scripts/discovery/capture-fixtures.sh).
/// Fixtures are picked by content, not file name, so a new capture keeps these tests valid.
@Suite(.onTestThreads) struct FixtureTests {
  static let avahiInstance = name("Avahi Chat\\.v2 ☕._switchboard._tcp.local")
  static let avahiPeer = name("avahi peer._networkplayground._udp.local")
  static let zeroconfInstance = name("zc chat ☕._switchboard._tcp.local")
  static let zeroconfPeer = name("zc peer._networkplayground._udp.local")

  static func messages(from source: String) throws -> [DNSMessage] {
    try Fixture.all.filter { $0.source == source }.map { try $0.message }
  }

  /// The first message from `source` that is a response holding every record named.
  static func response(from source: String, where matches: (DNSMessage) -> Bool) throws -> DNSMessage {
    let found = try messages(from: source).first { $0.flags.isResponse && matches($0) }
    return try #require(found, "no \(source) response matches")
  }

  @Test func bothRespondersAreCaptured() throws {
    #expect(Fixture.all.count >= 20)
    #expect(try Self.messages(from: "avahi").count >= 10)
    #expect(try Self.messages(from: "zeroconf").count >= 5)
  }

  @Test(arguments: Fixture.all)
  func decodesAndRoundTrips(_ fixture: Fixture) throws {
    let message = try fixture.message
    #expect(message.id == 0)  // multicast mDNS
    for compression in [DNSCompression.multicast, .standard, .none] {
      #expect(try DNSMessage(decoding: message.encode(compression: compression)) == message)
    }
    // Our compression does at least as well as the responder's own (zeroconf sends an empty
    // TXT as zero bytes of data, which we write as one zero byte).
    let emptyTXTs = (message.answers + message.authorities + message.additionals).filter {
      $0.rdata == .txt(.empty)
    }
    #expect(message.encode().count <= fixture.bytes.count + emptyTXTs.count)
  }

  @Test func avahiAnnouncement() throws {
    let message = try Self.response(from: "avahi") { message in
      message.answers.contains { $0.type == .srv && $0.name == Self.avahiInstance }
        && message.answers.contains { $0.type == .a }
    }
    let records = message.answers
    let ptr = try #require(records.first { $0.type == .ptr && $0.name == name("_switchboard._tcp.local") })
    #expect(ptr.rdata == .ptr(Self.avahiInstance))
    #expect(!ptr.cacheFlush && ptr.ttl == 4500)
    let srv = try #require(records.first { $0.type == .srv })
    #expect(srv.rdata == .srv(priority: 0, weight: 0, port: 7100, target: name("sbdns-a.local")))
    #expect(srv.cacheFlush && srv.ttl == 120)
    let text = try #require(records.first { $0.type == .txt })
    guard case .txt(let entries) = text.rdata else { throw DNSError.malformedRecordData }
    #expect(entries.entries.map(\.description) == ["version=1", "flag", "note="])
    #expect(entries.entry(forKey: "VERSION")?.valueString == "1")
    #expect(entries.entry(forKey: "flag")?.value == nil)
    #expect(entries.entry(forKey: "note")?.value == [])
    #expect(text.cacheFlush && text.ttl == 4500)
    #expect(records.contains { $0.rdata == .a(DNSIPv4Address(10, 231, 7, 1)) && $0.cacheFlush })
    #expect(records.contains { $0.rdata == .aaaa(DNSIPv6Address("fe80::5b:d0ff:fe00:1")!) && $0.cacheFlush })
    // The service type itself is announced under _services._dns-sd._udp (RFC 6763 §9).
    let types = try Self.messages(from: "avahi").filter(\.flags.isResponse).flatMap(\.answers)
    #expect(
      types.contains {
        $0.name == name("_services._dns-sd._udp.local") && $0.rdata == .ptr(name("_switchboard._tcp.local"))
          && !$0.cacheFlush
      })
    // One label holding a space, a dot and UTF-8; printed the way avahi-browse printed it.
    #expect(srv.name.labels[0] == Array("Avahi Chat.v2 ☕".utf8))
    #expect(srv.name.formatted(.avahi) == "Avahi\\032Chat\\.v2\\032\\226\\152\\149._switchboard._tcp.local")
  }

  @Test func avahiSendsAnEmptyTXTAsOneZeroByte() throws {
    let message = try Self.response(from: "avahi") { message in
      message.answers.contains { $0.type == .txt && $0.name == Self.avahiPeer }
    }
    let text = try #require(message.answers.first { $0.type == .txt })
    #expect(text.rdata == .txt(.empty))
    // TXT, class IN + cache-flush, TTL 4500, length 1, one zero byte — in the capture and in ours.
    let onTheWire: [UInt8] = [0x00, 0x10, 0x80, 0x01, 0x00, 0x00, 0x11, 0x94, 0x00, 0x01, 0x00]
    let fixture = try #require(Fixture.all.first { (try? $0.message) == message })
    #expect(fixture.bytes.contains(onTheWire))
    #expect(message.encode().contains(onTheWire))
    // The 17-character service type (over RFC 6763's 15) is just a label to the codec.
    #expect(text.name.labels[1] == Array("_networkplayground".utf8))
  }

  @Test func avahiProbeAsksANYAndProposesItsRecords() throws {
    let probe = try #require(
      try Self.messages(from: "avahi").first { message in
        !message.flags.isResponse && message.questions.contains { $0.name == Self.avahiInstance }
      })
    #expect(probe.questions.allSatisfy { $0.type == .any && !$0.unicastResponse })
    #expect(Set(probe.authorities.filter { $0.name == Self.avahiInstance }.map(\.type)) == [.srv, .txt])
    #expect(probe.authorities.allSatisfy { !$0.cacheFlush })
  }

  @Test func zeroconfAnnouncementDeniesAAAAWithNSEC() throws {
    let message = try Self.response(from: "zeroconf") { message in
      message.answers.contains { $0.type == .srv && $0.name == Self.zeroconfInstance && $0.ttl > 0 }
    }
    let all = message.answers + message.additionals
    let nsec = try #require(all.first { $0.type == .nsec })
    #expect(nsec.name == name("zc-host.local"))
    #expect(nsec.rdata == .nsec(nextName: name("zc-host.local"), types: [.a]))
    #expect(nsec.cacheFlush && nsec.ttl == 120)
    #expect(
      all.contains {
        $0.rdata == .srv(priority: 0, weight: 0, port: 7200, target: name("zc-host.local")) && $0.cacheFlush
      })
    #expect(all.contains { $0.rdata == .a(DNSIPv4Address(10, 231, 7, 2)) && $0.cacheFlush })
    #expect(all.contains { $0.rdata == .txt(txt("version=1", "flag", "note=")) && $0.cacheFlush })
    #expect(all.contains { $0.rdata == .ptr(Self.zeroconfInstance) && !$0.cacheFlush })
  }

  @Test func zeroconfSendsAnEmptyTXTAsZeroLengthData() throws {
    // python-zeroconf 0.154 writes an empty TXT with a zero-length rdata, the form RFC 6763
    // §6.1 forbids (and iOS ignores). We read it as the empty TXT and write one zero byte.
    let message = try Self.response(from: "zeroconf") { message in
      (message.answers + message.additionals).contains { $0.type == .txt && $0.name == Self.zeroconfPeer }
    }
    let text = try #require((message.answers + message.additionals).first { $0.type == .txt })
    #expect(text.rdata == .txt(.empty))
    let fixture = try #require(Fixture.all.first { (try? $0.message) == message })
    #expect(fixture.bytes.contains([0x00, 0x10, 0x80, 0x01, 0x00, 0x00, 0x11, 0x94, 0x00, 0x00]))
    #expect(message.encode().contains([0x00, 0x10, 0x80, 0x01, 0x00, 0x00, 0x11, 0x94, 0x00, 0x01, 0x00]))
  }

  @Test func zeroconfProbesWithAQUQuestion() throws {
    let probe = try #require(
      try Self.messages(from: "zeroconf").first { !$0.flags.isResponse && !$0.authorities.isEmpty })
    #expect(probe.questions.count == 1)
    #expect(probe.questions[0].type == .ptr && probe.questions[0].unicastResponse)
    #expect(probe.authorities[0].type == .ptr)
  }

  @Test func queriesCarryKnownAnswersWithoutCacheFlush() throws {
    for source in ["avahi", "zeroconf"] {
      let queries = try Self.messages(from: source).filter { !$0.flags.isResponse && !$0.answers.isEmpty }
      #expect(!queries.isEmpty, "\(source) sent no query with known answers")
      for query in queries {
        #expect(query.answers.allSatisfy { $0.type == .ptr && !$0.cacheFlush && $0.ttl > 0 })
      }
    }
  }

  @Test func zeroconfSplitsADotInAnotherInstanceName() throws {
    // zeroconf keeps names as dotted text, so avahi's one label "Avahi Chat.v2 ☕" comes back
    // in zeroconf's known answers as two labels — a different name. Our side must keep the
    // label whole (as avahi does) and not be confused by the split form.
    let split = name("Avahi Chat.v2 ☕._switchboard._tcp.local")
    #expect(split != Self.avahiInstance)
    let queries = try Self.messages(from: "zeroconf").filter { !$0.flags.isResponse }
    #expect(queries.contains { $0.answers.contains { $0.rdata == .ptr(split) } })
    let avahiQueries = try Self.messages(from: "avahi").filter { !$0.flags.isResponse }
    #expect(avahiQueries.contains { $0.answers.contains { $0.rdata == .ptr(Self.avahiInstance) } })
  }

  @Test func goodbyesHaveTTLZero() throws {
    let zeroconf = try Self.response(from: "zeroconf") { message in message.answers.allSatisfy { $0.ttl == 0 }
    }
    #expect(Set(zeroconf.answers.map(\.type)) == [.ptr, .srv, .txt, .a, .nsec])
    let avahi = try Self.response(from: "avahi") { message in
      message.answers.contains { $0.type == .ptr && $0.ttl == 0 }
    }
    // avahi says goodbye to the service records, not to its host's addresses.
    #expect(
      avahi.answers.filter { $0.type == .srv || $0.type == .txt || $0.type == .ptr }.allSatisfy {
        $0.ttl == 0
      })
  }

  @Test func cacheFlushOnUniqueRecordsNeverOnServicePTRs() throws {
    for fixture in Fixture.all {
      let message = try fixture.message
      guard message.flags.isResponse else { continue }
      for record in message.answers + message.additionals {
        switch record.type {
        case .ptr
        where record.name.hasSuffix(name("_tcp.local")) || record.name.hasSuffix(name("_udp.local")):
          #expect(!record.cacheFlush, "\(fixture.file): \(record)")
        case .srv, .txt, .a, .aaaa, .nsec:
          #expect(record.cacheFlush, "\(fixture.file): \(record)")
        default: break
        }
      }
    }
  }
}
