import SwitchboardTestSupport
import Testing

@testable import SwitchboardDNS

/// Every way a packet can be malformed ends in its own ``DNSError``, never a crash.
@Suite(.onTestThreads) struct DNSMalformedTests {
  static let oneAnswer = header(counts: [0, 1, 0, 0])
  static let oneQuestion = header(counts: [1, 0, 0, 0])

  func decode(_ bytes: [UInt8], limits: DNSLimits = .default) throws(DNSError) -> DNSMessage {
    try DNSMessage(decoding: bytes, limits: limits)
  }

  @Test func truncatedHeader() {
    for length in 0..<12 {
      #expect(throws: DNSError.truncatedHeader) { try decode(Array(header().prefix(length))) }
    }
  }

  @Test func truncatedQuestion() {
    let question = wire("vm", "local") + [0, 1, 0, 1]
    // Enough room for the count check (5 bytes), but cut inside the name or the fixed fields.
    for cut in 5..<question.count {
      #expect(throws: DNSError.truncatedQuestion) { try decode(Self.oneQuestion + question.prefix(cut)) }
    }
    // A label that swallows the root byte: the type and class are missing.
    #expect(throws: DNSError.truncatedQuestion) { try decode(Self.oneQuestion + [3, 0x61, 0x62, 0, 0]) }
  }

  @Test func truncatedRecord() {
    let record = wire("vm", "local") + recordTail(type: 1, rdata: [10, 0, 0, 1])
    for cut in 11..<(record.count - 4) {
      #expect(throws: DNSError.truncatedRecord) { try decode(Self.oneAnswer + record.prefix(cut)) }
    }
  }

  @Test func truncatedRecordData() {
    let record = wire("vm", "local") + recordTail(type: 1, rdata: [10, 0, 0, 1])
    #expect(throws: DNSError.truncatedRecordData) { try decode(Self.oneAnswer + record.dropLast()) }
    #expect(throws: DNSError.truncatedRecordData) {
      try decode(Self.oneAnswer + wire("a") + recordTail(type: 16, rdata: [1, 0x61], length: 300))
    }
  }

  @Test func pointerToItselfIsALoop() {
    #expect(throws: DNSError.pointerLoop) { try decode(Self.oneQuestion + pointer(12) + [0, 1, 0, 1]) }
  }

  @Test func pointerBackIntoTheSameNameIsALoop() {
    // offset 12: label "a", then a pointer back to 12: a, a, a, ...
    #expect(throws: DNSError.pointerLoop) {
      try decode(Self.oneQuestion + [1, 0x61] + pointer(12) + [0, 1, 0, 1])
    }
    // Two names pointing at each other: the second (at 18) points to the first (12), which
    // points forward to the second.
    let bytes = header(counts: [2, 0, 0, 0]) + pointer(18) + [0, 1, 0, 1] + pointer(12) + [0, 1, 0, 1]
    #expect(throws: DNSError.forwardPointer) { try decode(bytes) }
  }

  /// A record whose opaque data is a chain of `length` pointers, each to the one before, the
  /// first to the owner name "a" at 12; then an A record named by the chain's last pointer.
  static func pointerChain(_ length: Int) -> [UInt8] {
    var chain: [UInt8] = []
    var previous = 12
    for index in 0..<length {
      chain += pointer(previous)
      previous = 25 + 2 * index
    }
    return header(counts: [0, 2, 0, 0]) + wire("a") + recordTail(type: 65000, rdata: chain)
      + pointer(previous) + recordTail(type: 1, rdata: [1, 2, 3, 4])
  }

  @Test func longPointerChainsCountAsALoop() throws {
    #expect(try decode(Self.pointerChain(100)).answers[1].name == name("a"))
    #expect(throws: DNSError.pointerLoop) { try decode(Self.pointerChain(200)) }
  }

  @Test func forwardPointer() {
    // The question's name points at the record's name, which comes later.
    let bytes = Self.oneQuestion + pointer(20) + [0, 1, 0, 1] + wire("vm") + [0, 0]
    #expect(throws: DNSError.forwardPointer) { try decode(bytes) }
  }

  @Test func pointerOutOfBounds() {
    #expect(throws: DNSError.pointerOutOfBounds) {
      try decode(Self.oneQuestion + pointer(0x3FFF) + [0, 1, 0, 1])
    }
  }

  @Test(arguments: [UInt8(0x40), 0x41, 0x7F, 0x80, 0xBF])
  func badLabelType(lengthByte: UInt8) {
    #expect(throws: DNSError.badLabelType) {
      try decode(Self.oneQuestion + [lengthByte] + Array(repeating: 0x61, count: 70) + [0, 0, 1, 0, 1])
    }
  }

  @Test func labelOf64BytesHasTheReservedTypeBits() {
    // On the wire a length over 63 cannot be written: 64 is 0x40, the extended label type.
    #expect(throws: DNSError.badLabelType) {
      try decode(Self.oneQuestion + wire(String(repeating: "x", count: 64)) + [0, 1, 0, 1])
    }
  }

  @Test func nameOver255Bytes() {
    // In place: 4 labels of 63 bytes = 256 bytes with the root.
    let label63: [UInt8] = [63] + [UInt8](repeating: 0x78, count: 63)
    let inPlace = label63 + label63 + label63 + label63 + [0]
    #expect(throws: DNSError.nameTooLong) { try decode(Self.oneQuestion + inPlace + [0, 1, 0, 1]) }
    // Through compression: two names of 130 bytes each are fine, the second prefixed onto
    // the first (via a pointer) is 2 * 129 + 1 = 259.
    let half = label63 + label63 + [1, 0x7A]
    let bytes =
      header(counts: [2, 0, 0, 0]) + half + [0] + [0, 1, 0, 1] + half + pointer(12) + [0, 1, 0, 1]
    #expect(throws: DNSError.nameTooLong) { try decode(bytes) }
  }

  @Test func countsLargerThanThePacket() {
    #expect(throws: DNSError.countExceedsPacket) {
      try decode(header(counts: [0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF]))
    }
    #expect(throws: DNSError.countExceedsPacket) { try decode(header(counts: [1, 0, 0, 0]) + [0, 0, 1, 0]) }
    #expect(throws: DNSError.countExceedsPacket) {
      try decode(header(counts: [0, 0, 0, 2]) + wire("a") + recordTail(type: 1, rdata: [1, 2, 3, 4]))
    }
  }

  @Test func recordCountLimit() {
    var bytes = header(counts: [0, 3, 0, 0])
    for _ in 0..<3 { bytes += [0] + recordTail(type: 1, rdata: [1, 2, 3, 4]) }
    #expect(throws: DNSError.tooManyRecords) { try decode(bytes, limits: DNSLimits(maxRecordCount: 2)) }
    #expect((try? decode(bytes, limits: DNSLimits(maxRecordCount: 3)))?.answers.count == 3)
  }

  @Test func messageSizeLimit() {
    let bytes = header() + Array(repeating: 0, count: 100)
    #expect(throws: DNSError.messageTooLarge) { try decode(bytes, limits: DNSLimits(maxMessageSize: 100)) }
    #expect(throws: DNSError.messageTooLarge) { try decode(Array(repeating: 0, count: 70_000)) }
  }

  static let wrongLengths: [(UInt16, [UInt8])] = [
    (1, [1, 1, 1]), (1, [1, 1, 1, 1, 1]), (1, []),
    (28, [UInt8](repeating: 1, count: 15)), (28, [UInt8](repeating: 1, count: 17)),
    (33, [0, 0, 0, 0, 0, 0]),  // SRV without its target
    (33, [0, 0, 0, 0, 0, 0, 0, 9]),  // SRV with a byte after its target
    (12, [0, 0]),  // PTR with a byte after its name
    (12, [3, 0x61, 0x62]),  // PTR whose name runs past the data
    (47, [5, 0x61]),  // NSEC whose name runs past the data
    (5, [0, 0]),  // CNAME with a byte after its name
    (6, [0, 0, 0, 0]),  // SOA too short for its serial and timers
  ]

  @Test(arguments: wrongLengths)
  func recordDataLengthMismatch(type: UInt16, rdata: [UInt8]) {
    #expect(throws: DNSError.recordDataLengthMismatch) {
      try decode(Self.oneAnswer + [0] + recordTail(type: type, rdata: rdata))
    }
  }

  @Test func nameInsideRecordDataMayPointOutOfIt() throws {
    // SRV target compressed against the owner name: legal, pointers leave the rdata.
    let bytes =
      Self.oneAnswer + wire("vm", "local")
      + recordTail(type: 33, rdata: [0, 0, 0, 0, 0x1F, 0x90] + pointer(12))
    let message = try decode(bytes)
    #expect(message.answers[0].rdata == .srv(priority: 0, weight: 0, port: 8080, target: name("vm.local")))
  }

  @Test(arguments: [
    [UInt8(0), 0],  // window of length 0
    [0, 33] + [UInt8](repeating: 0xFF, count: 33),  // longer than 32
    [0, 4, 0x40],  // length 4, 1 byte present
    [0],  // window without length
  ])
  func malformedNSECBitmap(bitmap: [UInt8]) {
    #expect(throws: DNSError.malformedRecordData) {
      try decode(Self.oneAnswer + [0] + recordTail(type: 47, rdata: [0] + bitmap))
    }
  }

  @Test func nsecBitmapDecodesEveryWindow() throws {
    // Window 0: A (1) and AAAA (28); window 1: type 256 + 7 = 263.
    let bitmap: [UInt8] = [0, 4, 0x40, 0, 0, 0x08, 1, 1, 0x01]
    let message = try decode(Self.oneAnswer + [0] + recordTail(type: 47, rdata: [0] + bitmap))
    #expect(message.answers[0].rdata == .nsec(nextName: .root, types: [.a, .aaaa, DNSRecordType(263)]))
    // The encoder writes the same canonical bitmap.
    #expect(Array(message.encode().suffix(bitmap.count)) == bitmap)
  }

  @Test func malformedTXT() {
    #expect(throws: DNSError.malformedRecordData) {
      try decode(Self.oneAnswer + [0] + recordTail(type: 16, rdata: [3, 0x61]))
    }
  }

  @Test func errorsSayWhere() {
    do {
      _ = try decode(Self.oneQuestion + [1, 0x61] + pointer(12) + [0, 1, 0, 1])
      Issue.record("decoded a pointer loop")
    } catch {
      #expect(error.message.contains("offset 14"))
      #expect(error.description.hasPrefix("DNSError: "))
      #expect(error == .pointerLoop && error != .forwardPointer)
    }
  }
}
