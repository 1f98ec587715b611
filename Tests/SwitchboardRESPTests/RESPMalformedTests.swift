import SwitchboardRESP
import SwitchboardTestSupport
import Testing

/// Bytes that are not RESP end in the documented ``RESPError``, limits are enforced before
/// anything is allocated, and a failed decoder stays failed.
@Suite(.onTestThreads) struct RESPMalformedTests {
  static let malformed: [(String, RESPError)] = [
    ("@foo\r\n", .unknownType),
    ("\r\n", .unknownType),
    (":12a\r\n", .malformedInteger),
    (":\r\n", .malformedInteger),
    (":9223372036854775808\r\n", .malformedInteger),
    (":-9223372036854775809\r\n", .malformedInteger),
    ("$-2\r\n", .malformedLength),
    ("$abc\r\n", .malformedLength),
    ("$\r\n", .malformedLength),
    ("*-1x\r\n", .malformedLength),
    ("%-1\r\n", .malformedLength),
    ("$99999999999999999999\r\n", .malformedLength),
    ("$3\r\nfooXY", .missingCRLF),
    ("$3\r\nfoo\n\r", .missingCRLF),
    ("+OK\n", .invalidLine),
    ("+O\rK\r\n", .invalidLine),
    (",1.2.3\r\n", .malformedDouble),
    (",0x10\r\n", .malformedDouble),
    (",infinity\r\n", .malformedDouble),
    (",\r\n", .malformedDouble),
    ("#x\r\n", .malformedBoolean),
    ("#tt\r\n", .malformedBoolean),
    ("(12a\r\n", .malformedBigNumber),
    ("(-\r\n", .malformedBigNumber),
    ("=3\r\ntxt\r\n", .malformedVerbatim),
    ("=4\r\ntxt-\r\n", .malformedVerbatim),
    ("_x\r\n", .malformedNull),
    ("$?\r\n;4\r\nHell\r\n;0\r\n", .unsupportedStreaming),
    ("*?\r\n", .unsupportedStreaming),
  ]

  @Test(arguments: 0..<malformed.count)
  func malformedInputEndsInItsError(index: Int) {
    let (wire, expected) = Self.malformed[index]
    let whole = decodeAll([bytes(wire)])
    #expect(whole.error == expected, "\(wire.debugDescription): \(String(describing: whole.error))")
    let bytewise = decodeAll(bytes(wire).map { [$0] })
    #expect(bytewise.error == expected, "byte at a time")
  }

  @Test func aBulkStringOverTheLimitFailsOnItsLengthLineBeforeItsBytes() {
    let limits = RESPLimits(maxBulkLength: 1024)
    // Only the length line: the decoder must not wait for (or make room for) the data.
    #expect(decodeAll([bytes("$1025\r\n")], limits: limits).error == .bulkTooLarge)
    #expect(decodeAll([bytes("!2000\r\n")], limits: limits).error == .bulkTooLarge)
    #expect(decodeAll([bytes("$536870912\r\n")]).error == .bulkTooLarge, "the default limit is 64 MiB")
    #expect(
      decodeAll([bytes("$1024\r\n")], limits: limits).error == nil, "at the limit it waits for the data")
  }

  @Test func anAggregateAnnouncingTooManyElementsFails() {
    let limits = RESPLimits(maxAggregateCount: 100)
    for type in ["*", "%", "~", ">", "|"] {
      #expect(decodeAll([bytes("\(type)101\r\n")], limits: limits).error == .tooManyElements, "\(type)")
      #expect(decodeAll([bytes("\(type)100\r\n")], limits: limits).error == nil, "\(type) at the limit")
    }
    // A huge announced count with no elements behind it allocates nothing much and waits.
    #expect(decodeAll([bytes("*1000000\r\n")]).error == nil)
  }

  @Test func nestingDeeperThanTheLimitFails() {
    let limits = RESPLimits(maxDepth: 4)
    #expect(
      decodeAll([bytes(String(repeating: "*1\r\n", count: 4) + ":1\r\n")], limits: limits).values.count == 1)
    #expect(
      decodeAll([bytes(String(repeating: "*1\r\n", count: 5) + ":1\r\n")], limits: limits).error == .tooDeep)
    // Attributes and maps count as levels too.
    #expect(decodeAll([bytes("|1\r\n%1\r\n*1\r\n~1\r\n>1\r\n:1\r\n")], limits: limits).error == .tooDeep)
    // The default (32) stops a deep bomb without recursion.
    #expect(decodeAll([bytes(String(repeating: "*1\r\n", count: 100_000))]).error == .tooDeep)
  }

  @Test func bufferingMoreThanTheLimitFails() throws {
    let limits = RESPLimits(maxBulkLength: 1 << 20, maxBufferedBytes: 4096)
    var decoder = RESPDecoder(limits: limits)
    try decoder.append(bytes("$100000\r\n"))
    #expect(try decoder.next() == nil)
    #expect(throws: RESPError.bufferFull) { try decoder.append([UInt8](repeating: 0x61, count: 5000)) }
    // A value that never completes counts what it already decoded: many small elements.
    var slow = RESPDecoder(limits: limits)
    try slow.append(bytes("*100000\r\n"))
    #expect(throws: RESPError.bufferFull) {
      for _ in 0..<2000 {
        try slow.append(bytes(":1\r\n"))
        _ = try slow.next()
      }
    }
  }

  @Test func aLineLongerThanTheLimitFailsWithoutItsCRLF() {
    let limits = RESPLimits(maxLineLength: 64)
    #expect(decodeAll([bytes("+" + String(repeating: "a", count: 65))], limits: limits).error == .lineTooLong)
    #expect(
      decodeAll([bytes("+" + String(repeating: "a", count: 64) + "\r\n")], limits: limits).values.count == 1)
    #expect(decodeAll([bytes("+" + String(repeating: "a", count: 63))], limits: limits).error == nil)
  }

  @Test func aFailedDecoderStaysFailed() throws {
    var decoder = RESPDecoder()
    try decoder.append(bytes("+OK\r\n@bad\r\n+later\r\n"))
    #expect(try decoder.next() == .simpleString("OK"))
    #expect(throws: RESPError.unknownType) { try decoder.next() }
    #expect(throws: RESPError.unknownType) { try decoder.next() }
    #expect(throws: RESPError.unknownType) { try decoder.append(bytes("+OK\r\n")) }
  }

  @Test func errorsCarryTheOffsetWhereTheyWereFound() {
    let error = decodeAll([bytes("+OK\r\n+OK\r\n@")]).error
    #expect(error?.message.contains("offset 10") == true, "\(String(describing: error))")
  }
}
