/// A DNS message (RFC 1035 §4.1) as unicast DNS and mDNS (RFC 6762) share it: a header, the
/// questions, and the answer, authority and additional records.
///
/// A pure value: ``init(decoding:limits:)`` turns bytes into a message or a ``DNSError`` and
/// never crashes on any input; ``encode(compression:)`` turns it back into bytes. Decoding what
/// was encoded gives an equal message (names compare ignoring ASCII case, and keep it).
///
/// Bytes after the last record the header counts are ignored, as most resolvers do.
public struct DNSMessage: Sendable, Hashable, CustomStringConvertible {
  /// The ID. mDNS multicast messages use 0; a reply to a legacy unicast query echoes the
  /// query's (RFC 6762 §6.7, §18.1).
  public var id: UInt16
  /// The header flags.
  public var flags: DNSFlags
  /// The question section.
  public var questions: [DNSQuestion]
  /// The answer section (in an mDNS query: the known answers, RFC 6762 §7.1).
  public var answers: [DNSRecord]
  /// The authority section (in an mDNS probe: the proposed records, RFC 6762 §8.2).
  public var authorities: [DNSRecord]
  /// The additional section.
  public var additionals: [DNSRecord]

  /// A message; every part defaults to empty, the flags to a query and the ID to 0.
  public init(
    id: UInt16 = 0, flags: DNSFlags = .query, questions: [DNSQuestion] = [], answers: [DNSRecord] = [],
    authorities: [DNSRecord] = [], additionals: [DNSRecord] = []
  ) {
    self.id = id
    self.flags = flags
    self.questions = questions
    self.answers = answers
    self.authorities = authorities
    self.additionals = additionals
  }

  /// Decodes a whole message.
  ///
  /// Compressed names are read anywhere (question and owner names, and inside the rdata of
  /// PTR, SRV, NSEC and the other types RFC 6762 §18.14 lists), with pointers checked: into the
  /// message, strictly before the name read so far, at most ``DNSLimits/maxPointersPerName``.
  /// - Throws: a ``DNSError`` saying what was wrong and where; see ``DNSLimits`` for the limits.
  public init(decoding bytes: [UInt8], limits: DNSLimits = .default) throws(DNSError) {
    guard bytes.count <= limits.maxMessageSize else {
      throw DNSError.messageTooLarge.with(
        "message of \(bytes.count) bytes (the limit is \(limits.maxMessageSize))")
    }
    guard bytes.count >= 12 else {
      throw DNSError.truncatedHeader.with("message of \(bytes.count) bytes, shorter than the 12-byte header")
    }
    var reader = DNSReader(bytes)
    let id = try reader.u16(.truncatedHeader)
    let flags = DNSFlags(rawValue: try reader.u16(.truncatedHeader))
    let counts = [
      Int(try reader.u16(.truncatedHeader)), Int(try reader.u16(.truncatedHeader)),
      Int(try reader.u16(.truncatedHeader)), Int(try reader.u16(.truncatedHeader)),
    ]
    // The smallest question is 5 bytes (root name, type, class), the smallest record 11.
    let smallest = counts[0] * 5 + (counts[1] + counts[2] + counts[3]) * 11
    guard smallest <= reader.remaining else {
      throw DNSError.countExceedsPacket.with(
        "counts \(counts) need at least \(smallest) bytes, the message has \(reader.remaining) after the header"
      )
    }
    let total = counts.reduce(0, +)
    guard total <= limits.maxRecordCount else {
      throw DNSError.tooManyRecords.with(
        "\(total) questions and records (the limit is \(limits.maxRecordCount))")
    }
    var questions: [DNSQuestion] = []
    questions.reserveCapacity(counts[0])
    for _ in 0..<counts[0] { questions.append(try reader.question()) }
    var sections: [[DNSRecord]] = []
    for count in counts[1...] {
      var records: [DNSRecord] = []
      records.reserveCapacity(count)
      for _ in 0..<count { records.append(try reader.record()) }
      sections.append(records)
    }
    self.init(
      id: id, flags: flags, questions: questions, answers: sections[0], authorities: sections[1],
      additionals: sections[2])
  }

  /// The message in wire form.
  ///
  /// - Parameter compression: where names may be compressed; mDNS rules by default.
  /// - Precondition: each section has at most 65,535 entries and each record's data fits in
  ///   65,535 bytes (only reachable with a TXT of hundreds of long entries or huge
  ///   ``DNSRecordData/unknown(_:_:)`` bytes; names and TXT strings are checked when built).
  public func encode(compression: DNSCompression = .multicast) -> [UInt8] {
    var writer = DNSWriter(compression: compression)
    writer.u16(id)
    writer.u16(flags.rawValue)
    for count in [questions.count, answers.count, authorities.count, additionals.count] {
      precondition(count <= 0xFFFF, "a DNS section holds at most 65535 entries, not \(count)")
      writer.u16(UInt16(count))
    }
    for question in questions { writer.question(question) }
    for record in answers + authorities + additionals { writer.record(record) }
    return writer.bytes
  }

  /// A multi-line dump in the style of `dig`: header, then each section.
  public var description: String {
    var lines = ["id=\(id) \(flags)"]
    if !questions.isEmpty {
      lines.append(";; questions")
      lines += questions.map(\.description)
    }
    for (title, records) in [
      ("answers", answers), ("authorities", authorities), ("additionals", additionals),
    ]
    where !records.isEmpty {
      lines.append(";; \(title)")
      lines += records.map(\.description)
    }
    return lines.joined(separator: "\n")
  }
}
