import SwitchboardTestSupport
import Testing

/// The seeded generator and the byte helpers built on it.
@Suite(.onTestThreads) struct SeededGeneratorTests {
  @Test func itIsSplitMix64() {
    // The reference implementation's first outputs for seed 0.
    var generator = SeededGenerator(seed: 0)
    #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
    #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
  }

  @Test func theSameSeedGivesTheSameSequence() {
    var a = SeededGenerator(seed: 42)
    var b = SeededGenerator(seed: 42)
    var c = SeededGenerator(seed: 43)
    let first = (0..<100).map { _ in a.next() }
    #expect(first == (0..<100).map { _ in b.next() })
    #expect(first != (0..<100).map { _ in c.next() })
  }

  @Test func randomSplitsCoverTheBytesInOrderWithinTheChunkLimit() {
    var generator = SeededGenerator(seed: 7)
    let bytes = pattern(count: 1000, seed: 3)
    for maxChunk in [1, 2, 17, 2000] {
      let chunks = bytes.randomSplits(maxChunk: maxChunk, using: &generator)
      #expect(Array(chunks.joined()) == bytes)
      #expect(chunks.allSatisfy { (1...maxChunk).contains($0.count) })
    }
    #expect(firstDifference(bytes, bytes) == nil)
    #expect(firstDifference(bytes, bytes.dropLast() + [bytes.last! &+ 1]) == 999)
    #expect(firstDifference(bytes, Array(bytes.prefix(10))) == 10)
  }
}
