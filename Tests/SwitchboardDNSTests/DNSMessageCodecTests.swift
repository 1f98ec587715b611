import SwitchboardTestSupport
import Testing

@testable import SwitchboardDNS

@Suite(.onTestThreads) struct DNSMessageCodecTests {
  static let instance = name("Switchboard on vm._switchboard._tcp.local")
  static let host = name("vm.local")

  /// A DNS-SD announcement as a responder sends it (RFC 6763 §12).
  static let announcement = DNSMessage(
    flags: .authoritativeResponse,
    answers: [
      DNSRecord(name: name("_switchboard._tcp.local"), ttl: 4500, rdata: .ptr(instance)),
      DNSRecord(
        name: instance, ttl: 120, rdata: .srv(priority: 0, weight: 0, port: 8080, target: host),
        cacheFlush: true),
      DNSRecord(
        name: instance, ttl: 4500, rdata: .txt(txt("version=1", "room=lobby", "ws=1337", "path=/")),
        cacheFlush: true),
      DNSRecord(name: host, ttl: 120, rdata: .a(DNSIPv4Address(10, 77, 0, 1)), cacheFlush: true),
      DNSRecord(name: host, ttl: 120, rdata: .aaaa(DNSIPv6Address("fe80::1")!), cacheFlush: true),
    ],
    additionals: [
      DNSRecord(
        name: instance, ttl: 120, rdata: .nsec(nextName: instance, types: [.txt, .srv]), cacheFlush: true),
      DNSRecord(name: host, ttl: 120, rdata: .nsec(nextName: host, types: [.a, .aaaa]), cacheFlush: true),
    ])

  static let everyRecordType: [DNSRecordData] = [
    .a(DNSIPv4Address(192, 168, 1, 20)),
    .aaaa(DNSIPv6Address("2001:db8::8:800:200c:417a")!),
    .ptr(instance),
    .srv(priority: 1, weight: 2, port: 65535, target: host),
    .txt(txt("key", "key=", "key=value")),
    .txt(.empty),
    .nsec(nextName: host, types: [.a, .aaaa, .nsec, DNSRecordType(1234), DNSRecordType(65535)]),
    .nsec(nextName: host, types: []),
    .unknown(DNSRecordType(65280), [1, 2, 3, 0xC0, 0x0C]),
    .unknown(.hinfo, []),
    .unknown(.cname, wire("target", "local")),
  ]

  @Test(arguments: everyRecordType)
  func everyRecordTypeRoundTrips(rdata: DNSRecordData) throws {
    for compression in [DNSCompression.none, .standard, .multicast] {
      let message = DNSMessage(
        id: 0x1234, flags: .authoritativeResponse,
        answers: [DNSRecord(name: Self.instance, ttl: 4500, rdata: rdata, cacheFlush: true)])
      let decoded = try DNSMessage(decoding: message.encode(compression: compression))
      #expect(decoded == message)
      #expect(decoded.answers[0].type == rdata.type)
    }
  }

  @Test func questionAndClassBitsRoundTrip() throws {
    let message = DNSMessage(
      id: 9,
      questions: [
        DNSQuestion(name: Self.instance, type: .any, unicastResponse: true),
        DNSQuestion(name: Self.host, type: .a),
        DNSQuestion(name: Self.host, type: .aaaa, dnsClass: DNSClass(rawValue: 3)),
      ],
      answers: [
        DNSRecord(name: Self.host, ttl: 10, rdata: .a(DNSIPv4Address(1, 2, 3, 4)), cacheFlush: false)
      ],
      authorities: [
        DNSRecord(name: Self.host, ttl: 10, rdata: .a(DNSIPv4Address(1, 2, 3, 4)), cacheFlush: true)
      ])
    let bytes = message.encode()
    let decoded = try DNSMessage(decoding: bytes)
    #expect(decoded == message)
    #expect(decoded.questions.map(\.unicastResponse) == [true, false, false])
    #expect(decoded.questions[2].dnsClass.rawValue == 3)
    #expect(decoded.answers[0].cacheFlush == false)
    #expect(decoded.authorities[0].cacheFlush == true)
    // On the wire: the QU bit and the cache-flush bit are the class field's top bit.
    #expect(
      Array(bytes[12 + Self.instance.wireLength..<12 + Self.instance.wireLength + 4]) == [0, 255, 0x80, 1])
    #expect(DNSClass(rawValue: 0x8001) == .internet)  // the top bit is never part of a class
  }

  @Test func encodesAKnownMessageByteForByte() {
    // A QU query for _http._tcp.local PTR and a known answer, compressed against the question.
    let message = DNSMessage(
      id: 0,
      questions: [DNSQuestion(name: name("_http._tcp.local"), type: .ptr, unicastResponse: true)],
      answers: [
        DNSRecord(name: name("_http._tcp.local"), ttl: 4500, rdata: .ptr(name("web._http._tcp.local")))
      ])
    let expected: [UInt8] =
      header(counts: [1, 1, 0, 0]) + wire("_http", "_tcp", "local") + [0, 12, 0x80, 1]
      + pointer(12) + recordTail(type: 12, ttl: 4500, rdata: [3] + Array("web".utf8) + pointer(12))
    #expect(message.encode() == expected)
  }

  @Test func compressionShrinksAnAnnouncementAndReadsBack() throws {
    let plain = Self.announcement.encode(compression: .none)
    let compressed = Self.announcement.encode()
    #expect(compressed.count * 2 <= plain.count)  // 447 → 223 bytes
    #expect(try DNSMessage(decoding: compressed) == Self.announcement)
    #expect(try DNSMessage(decoding: plain) == Self.announcement)
  }

  @Test func multicastCompressionReachesIntoSRVAndNSECButStandardDoesNot() throws {
    let srv = DNSMessage(answers: [
      DNSRecord(name: Self.host, ttl: 1, rdata: .a(DNSIPv4Address(1, 1, 1, 1))),
      DNSRecord(name: Self.instance, ttl: 1, rdata: .srv(priority: 0, weight: 0, port: 1, target: Self.host)),
      DNSRecord(name: Self.host, ttl: 1, rdata: .nsec(nextName: Self.host, types: [.a])),
    ])
    let multicast = srv.encode(compression: .multicast)
    let standard = srv.encode(compression: .standard)
    #expect(multicast.count == standard.count - 2 * (Self.host.wireLength - 2))
    #expect(try DNSMessage(decoding: multicast) == srv)
    #expect(try DNSMessage(decoding: standard) == srv)
  }

  @Test func compressionKeepsCaseByMatchingExactBytesOnly() throws {
    let message = DNSMessage(answers: [
      DNSRecord(name: name("Host.local"), ttl: 1, rdata: .a(DNSIPv4Address(1, 1, 1, 1))),
      DNSRecord(name: name("HOST.local"), ttl: 1, rdata: .a(DNSIPv4Address(1, 1, 1, 2))),
    ])
    let decoded = try DNSMessage(decoding: message.encode())
    #expect(decoded.answers.map { $0.name.description } == ["Host.local.", "HOST.local."])
  }

  @Test func unknownRecordDataIsNeverCompressedOrChanged() throws {
    // Bytes that look like the owner name must be written as given, not as a pointer.
    let looksLikeAName = wire("vm", "local")
    let message = DNSMessage(answers: [
      DNSRecord(name: Self.host, ttl: 1, rdata: .unknown(DNSRecordType(65000), looksLikeAName))
    ])
    let bytes = message.encode()
    #expect(Array(bytes.suffix(looksLikeAName.count)) == looksLikeAName)
    #expect(try DNSMessage(decoding: bytes) == message)
  }

  @Test func compressedNamesInsideOlderTypesAreExpanded() throws {
    // A CNAME whose target is compressed (RFC 6762 §18.14 lets senders do that): the decoder
    // writes the name out whole, so the bytes stand on their own.
    let bytes =
      header(counts: [0, 1, 0, 0]) + wire("vm", "local")
      + recordTail(type: 5, rdata: [5] + Array("alias".utf8) + pointer(12))
    let message = try DNSMessage(decoding: bytes)
    #expect(message.answers[0].rdata == .unknown(.cname, wire("alias", "vm", "local")))
    #expect(try DNSMessage(decoding: message.encode()) == message)
    // MX: preference, then a compressed exchange name.
    let mx =
      header(counts: [0, 1, 0, 0]) + wire("vm", "local") + recordTail(type: 15, rdata: [0, 10] + pointer(12))
    #expect(try DNSMessage(decoding: mx).answers[0].rdata == .unknown(.mx, [0, 10] + wire("vm", "local")))
  }

  @Test func pointersOnlyTargetTheFirst16KiB() throws {
    // 200 records with distinct names, each with 100 bytes of opaque data: later names sit past
    // offset 0x4000 and must not become targets, but names before it still compress.
    var records: [DNSRecord] = []
    for index in 0..<200 {
      records.append(
        DNSRecord(
          name: try name("local").prepending("host\(index)"), ttl: 1,
          rdata: .unknown(DNSRecordType(65001), Array(repeating: 0xAB, count: 100))))
    }
    records += records.map { DNSRecord(name: $0.name, ttl: 2, rdata: .a(DNSIPv4Address(1, 2, 3, 4))) }
    let message = DNSMessage(answers: records)
    let bytes = message.encode()
    #expect(bytes.count > 0x4000 + 0x1000)
    #expect(try DNSMessage(decoding: bytes) == message)
  }

  @Test func generatedMessagesRoundTrip() throws {
    var random = TestRandom(seed: 6762)
    for _ in 0..<400 {
      let message = GeneratedMessages.message(&random)
      for compression in [DNSCompression.none, .standard, .multicast] {
        let decoded = try DNSMessage(decoding: message.encode(compression: compression))
        #expect(decoded == message)
        // Equality ignores ASCII case; the bytes must survive exactly too.
        #expect(decoded.answers.map(\.name.labels) == message.answers.map(\.name.labels))
      }
      #expect(message.encode().count <= message.encode(compression: .none).count)
    }
  }

  @Test func trailingBytesAfterTheLastRecordAreIgnored() throws {
    let bytes = Self.announcement.encode() + [1, 2, 3]
    #expect(try DNSMessage(decoding: bytes) == Self.announcement)
  }

  @Test func describesRecords() {
    #expect(
      Self.announcement.answers[1].description
        == "Switchboard on vm._switchboard._tcp.local. 120 flush IN SRV 0 0 8080 vm.local.")
    #expect(
      DNSRecord(name: Self.host, ttl: 5, rdata: .unknown(DNSRecordType(99), [0xAB, 1])).description
        == "vm.local. 5 IN TYPE99 \\# 2 ab01")
    #expect(Self.announcement.additionals[1].description == "vm.local. 120 flush IN NSEC vm.local. A AAAA")
  }
}
