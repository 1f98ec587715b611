import SwitchboardDNS

/// Cuts what would be one oversized mDNS message into packets that fit the link (RFC 6762
/// §17, §7.2, §18.5).
///
/// A multicast DNS packet should fit the interface MTU: on Ethernet 1500 bytes less the IP and
/// UDP headers, 1472 bytes of payload over IPv4 and 1452 over IPv6. The same bytes go out on
/// both families, so ``defaultLimit`` is 1452. A record too big for the limit on its own (a
/// large TXT) goes in a packet by itself, which §17 allows up to 9000 bytes with headers
/// (``hardLimit``); the responder refuses a TXT that could not fit even that.
///
/// Nothing is lost except additional records: responses keep every answer (spread over as
/// many packets as needed, TC clear, §18.5), queries keep every question and known answer
/// (TC set on all but the last packet, §7.2), probes keep each name's question and proposed
/// records in one packet (§8.1).
struct MDNSPacketSplitter: Sendable {
  /// 1500 (Ethernet MTU) − 40 (IPv6 header) − 8 (UDP header).
  static let defaultLimit = 1452
  /// 9000 (§17's ceiling for a whole packet) − 40 (IPv6 header) − 8 (UDP header).
  static let hardLimit = 8952
  /// The smallest record: a 2-byte compressed name and 10 bytes of type, class, TTL, length.
  private static let smallestRecord = 12

  /// The largest payload aimed for, in bytes.
  let limit: Int

  init(limit: Int = Self.defaultLimit) {
    self.limit = max(limit, 512)
  }

  /// Responses carrying `answers`, in order, in as few packets as they fit; then each of
  /// `additionals` in the first packet with room for it, or nowhere.
  func responses(_ template: DNSMessage, answers: [DNSRecord], additionals: [DNSRecord]) -> [DNSMessage] {
    var packets = pack(template, answers.map { DNSMessage(answers: [$0]) })
    var sizes = packets.map { $0.encode().count }
    for record in additionals {
      for index in packets.indices where sizes[index] + Self.smallestRecord <= limit {
        var candidate = packets[index]
        candidate.additionals.append(record)
        let size = candidate.encode().count
        guard size <= limit else { continue }
        packets[index] = candidate
        sizes[index] = size
        break
      }
    }
    return packets
  }

  /// Queries asking `questions` with `knownAnswers` (§7.2): questions first, then the known
  /// answers, in order; every packet but the last has TC set, so a responder waits for the
  /// rest before answering.
  func queries(_ template: DNSMessage, questions: [DNSQuestion], knownAnswers: [DNSRecord]) -> [DNSMessage] {
    let groups =
      questions.map { DNSMessage(questions: [$0]) } + knownAnswers.map { DNSMessage(answers: [$0]) }
    var packets = pack(template, groups)
    for index in packets.indices.dropLast() { packets[index].flags.isTruncated = true }
    return packets
  }

  /// Messages made of `groups` (each kept whole: one probe's question and proposed records),
  /// consecutive groups sharing a packet while they fit. A group that alone exceeds the limit
  /// gets a packet of its own.
  func pack(_ template: DNSMessage, _ groups: [DNSMessage]) -> [DNSMessage] {
    var packets: [DNSMessage] = []
    var current = template
    var currentIsEmpty = true
    for group in groups {
      var candidate = current
      candidate.questions += group.questions
      candidate.answers += group.answers
      candidate.authorities += group.authorities
      candidate.additionals += group.additionals
      if currentIsEmpty || candidate.encode().count <= limit {
        current = candidate
        currentIsEmpty = false
        continue
      }
      packets.append(current)
      current = template
      current.questions = group.questions
      current.answers = group.answers
      current.authorities = group.authorities
      current.additionals = group.additionals
    }
    if !currentIsEmpty { packets.append(current) }
    return packets
  }

  /// Whether `record` alone, in a message with nothing else, fits ``hardLimit``.
  static func fitsOnePacket(_ record: DNSRecord) -> Bool {
    DNSMessage(answers: [record]).encode(compression: .none).count <= hardLimit
  }
}
