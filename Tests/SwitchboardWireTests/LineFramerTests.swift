import SwitchboardTestSupport
import SwitchboardWire
import Testing

@Suite(.onTestThreads)
struct LineFramerTests {
  private func drain(_ framer: inout LineFramer) -> [LineFramer.Output] {
    var out: [LineFramer.Output] = []
    while let o = framer.next() { out.append(o) }
    return out
  }

  @Test func lfAndCrlfEndLines() {
    var f = LineFramer()
    f.append(contentsOf: Array("a\nb\r\nc".utf8))
    #expect(drain(&f) == [.line(Array("a".utf8)), .line(Array("b".utf8))])
    #expect(f.takePartial() == Array("c".utf8))
    #expect(f.takePartial() == nil)
  }

  @Test func aLineOverTheLimitIsReportedOnceAndSkipped() {
    var f = LineFramer(maxLineLength: 8)
    f.append(contentsOf: Array("0123456789abcdef".utf8))
    #expect(drain(&f) == [.tooLong(limit: 8)])
    f.append(contentsOf: Array("more of the long line\nok\n".utf8))
    #expect(drain(&f) == [.line(Array("ok".utf8))])
  }

  @Test func aCompleteLineOverTheLimitIsRejected() {
    var f = LineFramer(maxLineLength: 4)
    f.append(contentsOf: Array("12345\nabc\n".utf8))
    #expect(drain(&f) == [.tooLong(limit: 4), .line(Array("abc".utf8))])
  }

  @Test func takePartialWhileDiscardingDropsTheRest() {
    var f = LineFramer(maxLineLength: 4)
    f.append(contentsOf: Array("123456789".utf8))
    #expect(drain(&f) == [.tooLong(limit: 4)])
    #expect(f.takePartial() == nil)
    f.append(contentsOf: Array("x\n".utf8))
    #expect(drain(&f) == [.line(Array("x".utf8))])
  }

  @Test func aPartialLineOneByteOverTheLimitIsDropped() {
    // Found by fuzz-line (Tests/Fuzz/line/corpus/partial-at-limit): 17 bytes wait for a
    // possible CR LF under a limit of 16; a pause must not hand them over as a line.
    var f = LineFramer(maxLineLength: 16)
    f.append(contentsOf: Array(repeating: UInt8(ascii: "z"), count: 17))
    #expect(drain(&f) == [])
    #expect(f.takePartial() == nil)
    f.append(contentsOf: Array(repeating: UInt8(ascii: "z"), count: 16) + [0x0D])
    #expect(f.takePartial() == Array(repeating: UInt8(ascii: "z"), count: 16))
  }

  @Test func oneReadOfManyLinesGivesThemAllInOrder() {
    // A pasted block or a burst from a client arrives as one read. (That this takes
    // linear time is measured, not asserted: a timed check would fail under load.)
    let count = 100_000
    var input: [UInt8] = []
    for i in 0..<count { input += Array("line \(i)\(i % 3 == 0 ? "\r" : "")\n".utf8) }
    input += Array("tail".utf8)
    var f = LineFramer()
    input.withUnsafeBytes { f.append($0) }
    var n = 0
    while let output = f.next() {
      guard output == .line(Array("line \(n)".utf8)) else {
        Issue.record("line \(n) came out as \(output)")
        return
      }
      n += 1
    }
    #expect(n == count)
    #expect(f.pendingCount == 4)
    #expect(f.takePartial() == Array("tail".utf8))
  }

  @Test func bytesAppendedBeforeTheLastLineIsTakenFollowIt() {
    var f = LineFramer()
    f.append(contentsOf: Array("a\nb\n".utf8))
    #expect(f.next() == .line(Array("a".utf8)))
    f.append(contentsOf: Array("c\r\nd".utf8))
    #expect(drain(&f) == [.line(Array("b".utf8)), .line(Array("c".utf8))])
    #expect(f.takePartial() == Array("d".utf8))
  }

  @Test func pendingCountLeavesOutLinesAlreadyTaken() {
    var f = LineFramer()
    f.append(contentsOf: Array("one\ntwo\nthr".utf8))
    #expect(f.pendingCount == 11)
    #expect(f.next() == .line(Array("one".utf8)))
    #expect(f.pendingCount == 7)
    #expect(drain(&f) == [.line(Array("two".utf8))])
    #expect(f.pendingCount == 3)
    f.append(contentsOf: Array("ee\n".utf8))
    #expect(drain(&f) == [.line(Array("three".utf8))])
    #expect(f.pendingCount == 0)
  }

  @Test(arguments: [1, 2, 3, 7, 64])
  func anySplitGivesTheSameLines(chunk: Int) {
    var generator = SeededGenerator(seed: UInt64(chunk))
    var input: [UInt8] = []
    for _ in 0..<300 {
      let length = Int(generator.next() % 20)
      input += (0..<length).map { _ in UInt8(0x20 + generator.next() % 90) }
      input += generator.next() % 2 == 0 ? [0x0A] : [0x0D, 0x0A]
    }
    var whole = LineFramer(maxLineLength: 12)
    whole.append(contentsOf: input)
    let expected = drain(&whole)
    var split = LineFramer(maxLineLength: 12)
    var got: [LineFramer.Output] = []
    var i = 0
    while i < input.count {
      let n = min(chunk + Int(generator.next() % 3), input.count - i)
      split.append(contentsOf: input[i..<i + n])
      got += drain(&split)
      i += n
    }
    #expect(got == expected)
  }
}
