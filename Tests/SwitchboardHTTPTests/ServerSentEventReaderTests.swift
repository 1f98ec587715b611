import SwitchboardHTTP
import SwitchboardTestSupport
import Testing

@Suite(.onTestThreads)
struct ServerSentEventReaderTests {
  /// The events `bytes` read to, fed in `pieces` of the given sizes (the rest at once), and
  /// the error that stopped the reader.
  private func read(
    _ bytes: [UInt8], pieces: [Int] = [], limits: ServerSentEventReader.Limits = .init()
  ) -> ([ServerSentEvent], ServerSentEventError?) {
    var reader = ServerSentEventReader(limits: limits)
    var events: [ServerSentEvent] = []
    var offset = 0
    var sizes = pieces
    while offset < bytes.count {
      let size = sizes.isEmpty ? bytes.count - offset : sizes.removeFirst()
      reader.append(bytes[offset..<min(bytes.count, offset + size)])
      offset += size
      do {
        while let event = try reader.next() { events.append(event) }
      } catch {
        return (events, error)
      }
    }
    return (events, nil)
  }

  private func read(_ text: String) -> [ServerSentEvent] { read(Array(text.utf8)).0 }

  @Test func theConsoleStreamReadsAsHistoryThenSnapshots() {
    let stream = """
      event: history
      data: {"interval":1,"points":[]}

      event: snapshot
      data: {"time":1}

      : a comment between events

      event: end
      data: {"reason":"logout"}


      """
    #expect(
      read(stream) == [
        ServerSentEvent(type: "history", data: #"{"interval":1,"points":[]}"#),
        ServerSentEvent(type: "snapshot", data: #"{"time":1}"#),
        ServerSentEvent(type: "end", data: #"{"reason":"logout"}"#),
      ])
  }

  @Test(arguments: ["\n", "\r\n", "\r"])
  func everyLineEndReadsTheSame(end: String) {
    let text = ["event: a", "data: one", "data:two", "data:  three", "", ""].joined(separator: end)
    #expect(read(text) == [ServerSentEvent(type: "a", data: "one\ntwo\n three")])
  }

  @Test func aCRLFSplitBetweenPiecesIsOneLineEnd() {
    // Were the LF a second line end, it would end the event after `data: a` early.
    let bytes = Array("data: a\r\ndata: b\r\n\r\n".utf8)
    for cut in 1..<bytes.count {
      #expect(
        read(bytes, pieces: [cut]).0 == [ServerSentEvent(type: "message", data: "a\nb")], "cut at \(cut)")
    }
    #expect(read(bytes, pieces: Array(repeating: 1, count: bytes.count)).0.count == 1)
  }

  @Test func aByteOrderMarkIsSkippedOnlyAtTheStart() {
    let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("data: x\n\n".utf8)
    #expect(read(bytes, pieces: [1, 1, 1]).0 == [ServerSentEvent(type: "message", data: "x")])
    // Later, the same bytes are part of a field name that is not `data`: ignored.
    let later = Array("data: x\n\n".utf8) + bytes
    #expect(read(later).0 == [ServerSentEvent(type: "message", data: "x")])
  }

  @Test func fieldsWithoutDataDispatchNothingAndUnknownFieldsAreIgnored() {
    #expect(
      read("event: lonely\n\nretry: 5\nfoo: bar\nid: 9\ndata\n\n") == [
        ServerSentEvent(type: "message", data: "", lastEventID: "9")
      ])
    // An unfinished event is not dispatched when the stream stops.
    #expect(read("data: half") == [])
  }

  @Test func anIdWithNULIsIgnoredAndAnIdCarriesOver() {
    #expect(read("id: 1\ndata: a\n\nid: 2\u{0}\ndata: b\n\n").map(\.lastEventID) == ["1", "1"])
  }

  @Test func aLineOverTheLimitFailsBeforeItIsKeptAndTheErrorSticks() {
    let limits = ServerSentEventReader.Limits(maxLineBytes: 16, maxEventBytes: 64)
    // No line end yet: the seventeenth byte is already too many.
    var reader = ServerSentEventReader(limits: limits)
    reader.append(Array("data: 0123456789".utf8))
    #expect(throws: Never.self) { try reader.next() }
    reader.append([UInt8(ascii: "x")])
    #expect(throws: ServerSentEventError.lineTooLong) { try reader.next() }
    reader.append(Array("\n\ndata: ok\n\n".utf8))
    #expect(throws: ServerSentEventError.lineTooLong) { try reader.next() }
    // A comment counts too; sixteen bytes pass.
    #expect(read(Array(": 34567890123456\ndata: 90123456\n\n".utf8), limits: limits).1 == nil)
    #expect(read(Array(":234567890123456789\n".utf8), limits: limits).1 == .lineTooLong)
  }

  @Test func anEventOverTheLimitFails() {
    let limits = ServerSentEventReader.Limits(maxLineBytes: 64, maxEventBytes: 10)
    // Two lines of five are ten bytes of data with the LF between them: eleven.
    let (events, error) = read(Array("data: 12345\ndata: 12345\n\n".utf8), limits: limits)
    #expect(events.isEmpty)
    #expect(error == .eventTooLarge)
    #expect(read(Array("data: 1234\ndata: 12345\n\n".utf8), limits: limits).0.map(\.data) == ["1234\n12345"])
  }

  @Test func theEventLimitCountsBytesAsReceivedNotAsDecoded() {
    // Ten bytes that are not UTF-8 pass a ten-byte limit and read as ten U+FFFD (thirty
    // bytes in UTF-8): found by fuzz-sse, whose property now counts scalars.
    let limits = ServerSentEventReader.Limits(maxLineBytes: 64, maxEventBytes: 10)
    let bytes = Array("data: ".utf8) + Array(repeating: 0xD4, count: 10) + Array("\r\n\r\n".utf8)
    let (events, error) = read(bytes, limits: limits)
    #expect(error == nil)
    #expect(events.map(\.data) == [String(repeating: "\u{FFFD}", count: 10)])
    #expect(read(Array(bytes.dropLast(4)) + [0xD4, 0x0A, 0x0A], limits: limits).1 == .eventTooLarge)
  }

  @Test func splitsReadAsTheWholeDoes() {
    let bytes = Array("event: snapshot\r\ndata: {\"a\":1}\r\n\r\n: c\rdata: x\ndata: y\n\n".utf8)
    let whole = read(bytes).0
    #expect(whole.count == 2)
    var generator = SeededGenerator(seed: 33)
    for _ in 0..<200 {
      var pieces: [Int] = []
      var left = bytes.count
      while left > 0 {
        let size = Int.random(in: 1...min(left, 9), using: &generator)
        pieces.append(size)
        left -= size
      }
      #expect(read(bytes, pieces: pieces).0 == whole)
    }
  }
}
