@testable import SwitchboardDNS

/// Random but valid messages for round-trip tests: names share suffixes (so compression has
/// work to do), labels hold any bytes, every record type appears.
enum GeneratedMessages {
  static let suffixes = [name("local"), name("_tcp.local"), name("_udp.local"), name("example.com"), .root]

  static func bytes(_ random: inout TestRandom, _ range: ClosedRange<Int>) -> [UInt8] {
    (0..<Int.random(in: range, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
  }

  static func label(_ random: inout TestRandom) -> [UInt8] {
    switch Int.random(in: 0...3, using: &random) {
    case 0: return bytes(&random, 1...63)
    case 1: return Array("_switchboard".utf8)
    case 2: return Array("Room \(Int.random(in: 0...9, using: &random)).v2 ☕".utf8)
    default: return Array(["host", "HOST", "Host"][Int.random(in: 0...2, using: &random)].utf8)
    }
  }

  static func randomName(_ random: inout TestRandom) -> DNSName {
    var result = suffixes.randomElement(using: &random)!
    for _ in 0..<Int.random(in: 0...3, using: &random) {
      guard let longer = try? result.prepending(label(&random)) else { break }
      result = longer
    }
    return result
  }

  static func rdata(_ random: inout TestRandom) -> DNSRecordData {
    switch Int.random(in: 0...7, using: &random) {
    case 0: return .a(DNSIPv4Address(rawValue: UInt32.random(in: 0...UInt32.max, using: &random)))
    case 1:
      return .aaaa(
        DNSIPv6Address(
          high: .random(in: 0...UInt64.max, using: &random), low: .random(in: 0...UInt64.max, using: &random))
      )
    case 2: return .ptr(randomName(&random))
    case 3:
      return .srv(
        priority: .random(in: 0...UInt16.max, using: &random),
        weight: .random(in: 0...UInt16.max, using: &random),
        port: .random(in: 0...UInt16.max, using: &random), target: randomName(&random))
    case 4:
      let entries = (0..<Int.random(in: 0...4, using: &random)).compactMap { _ in
        try? DNSTXT.Entry(bytes: bytes(&random, 1...40))
      }
      return .txt(DNSTXT(entries))
    case 5:
      let types = (0..<Int.random(in: 0...6, using: &random)).map { _ in
        DNSRecordType(
          Bool.random(using: &random)
            ? .random(in: 0...255, using: &random) : .random(in: 0...UInt16.max, using: &random))
      }
      return .nsec(nextName: randomName(&random), types: Set(types))
    case 6:
      return .unknown(DNSRecordType(UInt16.random(in: 256...65000, using: &random)), bytes(&random, 0...30))
    default: return .unknown(.cname, randomName(&random).wire + [0])
    }
  }

  static func record(_ random: inout TestRandom) -> DNSRecord {
    DNSRecord(
      name: randomName(&random), ttl: .random(in: 0...UInt32.max, using: &random), rdata: rdata(&random),
      cacheFlush: .random(using: &random),
      dnsClass: DNSClass(rawValue: Bool.random(using: &random) ? 1 : .random(in: 0...0x7FFF, using: &random)))
  }

  static func message(_ random: inout TestRandom) -> DNSMessage {
    func records(_ random: inout TestRandom) -> [DNSRecord] {
      (0..<Int.random(in: 0...5, using: &random)).map { _ in record(&random) }
    }
    let questions = (0..<Int.random(in: 0...3, using: &random)).map { _ in
      DNSQuestion(
        name: randomName(&random), type: DNSRecordType(.random(in: 0...UInt16.max, using: &random)),
        unicastResponse: .random(using: &random))
    }
    return DNSMessage(
      id: .random(in: 0...UInt16.max, using: &random),
      flags: DNSFlags(rawValue: .random(in: 0...UInt16.max, using: &random)),
      questions: questions, answers: records(&random), authorities: records(&random),
      additionals: records(&random))
  }
}
