import SwitchboardChat
import SwitchboardTestSupport
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
