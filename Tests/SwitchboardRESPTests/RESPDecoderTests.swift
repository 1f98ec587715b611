import SwitchboardRESP
import SwitchboardTestSupport
import Testing

/// Every RESP2 and RESP3 type decodes to the value it stands for, whole, a byte at a time
/// and in random splits, and encodes back to the same bytes.
@Suite(.onTestThreads) struct RESPDecoderTests {
  /// One vector per type: wire bytes and the value.
  static let vectors: [(String, RESPValue)] = [
    ("+OK\r\n", .simpleString("OK")),
    ("-ERR unknown command 'FOO'\r\n", .error("ERR unknown command 'FOO'")),
    (":1000\r\n", .integer(1000)),
    (":-9223372036854775808\r\n", .integer(.min)),
    (":9223372036854775807\r\n", .integer(.max)),
    ("$5\r\nhello\r\n", .bulkString(Array("hello".utf8))),
    ("$0\r\n\r\n", .bulkString([])),
    ("$4\r\na\r\nb\r\n", .bulkString(Array("a\r\nb".utf8))),
    ("_\r\n", .null),
    ("*2\r\n:1\r\n$1\r\nx\r\n", .array([.integer(1), .bulkString([0x78])])),
    ("*0\r\n", .array([])),
    ("*2\r\n*1\r\n+a\r\n*0\r\n", .array([.array([.simpleString("a")]), .array([])])),
    ("%1\r\n+key\r\n:7\r\n", .map([RESPPair(key: .simpleString("key"), value: .integer(7))])),
    ("%0\r\n", .map([])),
    ("~2\r\n+a\r\n+b\r\n", .set([.simpleString("a"), .simpleString("b")])),
    (",3.25\r\n", .double(3.25)),
    (",-inf\r\n", .double(-.infinity)),
    (",inf\r\n", .double(.infinity)),
    (",1e+100\r\n", .double(1e100)),
    ("#t\r\n", .boolean(true)),
    ("#f\r\n", .boolean(false)),
    (
      "(3492890328409238509324850943850943825024385\r\n",
      .bigNumber("3492890328409238509324850943850943825024385")
    ),
    ("=15\r\ntxt:Some string\r\n", .verbatimString(format: "txt", text: Array("Some string".utf8))),
    ("!21\r\nSYNTAX invalid syntax\r\n", .bulkError(Array("SYNTAX invalid syntax".utf8))),
    (
      ">3\r\n+message\r\n+room\r\n$2\r\nhi\r\n",
      .push([.simpleString("message"), .simpleString("room"), .bulkString([0x68, 0x69])])
    ),
    (
      "|1\r\n+ttl\r\n:3600\r\n$1\r\nv\r\n",
      .attribute([RESPPair(key: .simpleString("ttl"), value: .integer(3600))], .bulkString([0x76]))
    ),
  ]

  @Test(arguments: 0..<vectors.count)
  func vectorDecodesWholeAndInEverySplit(index: Int) throws {
    let (wire, expected) = Self.vectors[index]
    let input = bytes(wire)
    #expect(decodeAll([input]).values == [expected])
    #expect(decodeAll(input.map { [$0] }).values == [expected], "one byte at a time")
    var random = SeededGenerator(seed: UInt64(index) + 6379)
    for _ in 0..<20 {
      let result = decodeAll(input.randomSplits(maxChunk: 4, using: &random))
      #expect(result.values == [expected] && result.error == nil)
    }
    #expect(expected.encoded == input, "encodes back to the same bytes")
  }

  @Test func nanDecodesAndEncodes() throws {
    let result = decodeAll([bytes(",nan\r\n")])
    guard case .double(let value)? = result.values.first else { throw TestFailure("no double: \(result)") }
    #expect(value.isNaN)
    #expect(RESPValue.double(.nan).encoded == bytes(",nan\r\n"))
  }

  @Test func resp2NullBulkAndNullArrayAreNull() {
    #expect(decodeAll([bytes("$-1\r\n*-1\r\n")]).values == [.null, .null])
  }

  @Test func manyValuesInOneReadComeOutInOrder() {
    var wire: [UInt8] = []
    for n in 0..<1000 { wire += RESPValue.integer(Int64(n)).encoded }
    let result = decodeAll([wire])
    #expect(result.values == (0..<1000).map { .integer(Int64($0)) })
    #expect(result.error == nil)
  }

  @Test func everyVectorConcatenatedSurvivesRandomSplits() {
    let wire = Self.vectors.flatMap { bytes($0.0) }
    let expected = Self.vectors.map(\.1)
    var random = SeededGenerator(seed: 2)
    for maxChunk in [1, 2, 3, 7, 64, 4096] {
      let result = decodeAll(wire.randomSplits(maxChunk: maxChunk, using: &random))
      #expect(result.values == expected && result.error == nil, "max chunk \(maxChunk)")
    }
  }

  @Test func aLargeBulkStringArrivingInPiecesIsNotParsedAgain() throws {
    let payload = pattern(count: 3 << 20, seed: 9)
    let wire = RESPValue.array([.bulkString(payload), .integer(1)]).encoded
    var decoder = RESPDecoder()
    var values: [RESPValue] = []
    var index = 0
    while index < wire.count {
      let end = min(index + 65_536, wire.count)
      try decoder.append(Array(wire[index..<end]))
      while let value = try decoder.next() { values.append(value) }
      index = end
    }
    guard case .array(let items)? = values.first, values.count == 1, case .bulkString(let got) = items[0]
    else {
      throw TestFailure("got \(values.count) values")
    }
    #expect(firstDifference(got, payload) == nil)
    #expect(decoder.bufferedByteCount == 0)
  }

  @Test func commandsEncodeAsArraysOfBulkStrings() {
    #expect(RESPCommand("SET", "k", "v").encoded == bytes("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"))
    #expect(
      RESPCommand(bytes: [Array("ECHO".utf8), [0, 13, 10]]).encoded == bytes("*2\r\n$4\r\nECHO\r\n$3\r\n") + [
        0, 13, 10, 13, 10,
      ])
    #expect(RESPCommand(["ping"]).name == "PING")
    // A command decodes as what it is: an array of bulk strings.
    let decoded = decodeAll([RESPCommand("GET", "key").encoded]).values
    #expect(decoded == [.array([.bulkString(Array("GET".utf8)), .bulkString(Array("key".utf8))])])
  }

  @Test func accessorsReadTheCommonShapes() {
    #expect(RESPValue.bulkString(Array("42".utf8)).integer == 42)
    #expect(RESPValue.simpleString("OK").string == "OK")
    #expect(RESPValue.error("NOSCRIPT x").errorMessage == "NOSCRIPT x")
    #expect(
      RESPValue.map([RESPPair(key: .integer(1), value: .integer(2))]).elements == [.integer(1), .integer(2)])
    #expect(RESPValue.attribute([], .null).isNull)
  }
}
